// Build steps that run beside another at the lowest CPU priority: `opforge test` runs one build
// with every job slot (--jobs) and lets one more build run at the same time under nice 19, so that
// the cores the first leaves idle (while it links, while one long unit finishes, while the Python
// side runs) do the next build's work instead of waiting. The lowered build takes only what is
// left over; the first keeps its pace.

import { AsyncLocalStorage } from 'node:async_hooks';
import { constants, setPriority } from 'node:os';

const lowered = new AsyncLocalStorage<boolean>();

/** Runs `step` with every process it starts (compilers and build tools, and theirs) at the lowest priority. */
export function atIdlePriority<T>(step: () => Promise<T>): Promise<T> {
  return lowered.run(true, step);
}

/**
 * Lowers a process just started, when the step that started it runs at the lowest priority. Its
 * children inherit the priority: the call comes right after the spawn, before it can start any.
 */
export function lowerIfIdle<C extends { pid?: number | undefined }>(child: C): C {
  if (lowered.getStore() && child.pid !== undefined) {
    try {
      setPriority(child.pid, constants.priority.PRIORITY_LOW);
    } catch {
      // Already gone, or not allowed here: it runs at the usual priority.
    }
  }
  return child;
}
