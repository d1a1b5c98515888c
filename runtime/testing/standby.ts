// Interpreters started ahead of the next run (`opforge test --watch`). A run's Python side spends
// seconds importing torch, paddle and jax before a harness can start; between two runs of a watch
// the user is editing, so the interpreters the next run will ask for start then. A run takes one
// started from the same inputs (Python, warm harnesses, and the bytes of the generated package and
// the harnesses it imported) instead of starting its own; any other is closed and a new one started.
// Each is used by one run only: the op libraries a run loads cannot be unloaded from it.

import path from 'node:path';
import { PKG_ROOT } from '../../generator/pkg-root.js';
import { compileKey } from './compile-key.js';
import { type Harness, PythonSession } from './python-session.js';

/** How a run starts a session (runTests' `sessions`): `warm` as PythonSession's. */
export type SessionStarter = (python: string, outDir: string, warm: boolean | readonly Harness[]) => PythonSession;

interface Ask {
  python: string;
  outDir: string;
  warm: boolean | readonly Harness[];
}

/** What a session imports when it starts: the generated package and the harnesses. */
function importedBytes(outDir: string): string {
  return compileKey([], [path.join(outDir, 'python'), path.join(PKG_ROOT, 'runtime', 'python')]);
}

const keyOf = (a: Ask): string => JSON.stringify([a.python, a.outDir, a.warm]);

export class Standby {
  private readonly ready = new Map<string, { session: PythonSession; stamp: string }>();
  private readonly asked = new Map<string, Ask>();
  private took = 0;

  /**
   * For runTests: a session started ahead from the same inputs, else a new one. One that would
   * import only what its requests need (warm: false) imports the PyTorch side ahead here: that is
   * what it waits for.
   */
  readonly start: SessionStarter = (python, outDir, warm) => {
    const ask = { python, outDir, warm: warm === false ? true : warm };
    const key = keyOf(ask);
    this.asked.set(key, ask);
    const r = this.ready.get(key);
    this.ready.delete(key);
    if (r?.session.available && r.stamp === importedBytes(outDir)) {
      this.took++;
      return r.session;
    }
    r?.session.close();
    return new PythonSession(python, outDir, { warm: ask.warm });
  };

  /** How many sessions runs took from here since the last call. */
  takenSinceLast(): number {
    const n = this.took;
    this.took = 0;
    return n;
  }

  /** Starts, for the next run, a session of each kind the runs so far asked for (unless one waits). */
  refill(): void {
    for (const [key, a] of this.asked) {
      if (this.ready.get(key)?.session.available) continue;
      this.ready.set(key, {
        session: new PythonSession(a.python, a.outDir, { warm: a.warm }),
        stamp: importedBytes(a.outDir),
      });
    }
  }

  /** How many sessions wait for a run. */
  get waiting(): number {
    return [...this.ready.values()].filter((r) => r.session.available).length;
  }

  /** Stops every waiting session. */
  close(): void {
    for (const r of this.ready.values()) r.session.close();
    this.ready.clear();
  }
}
