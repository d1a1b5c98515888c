// opforge's machine cache: builds of opforge's own native pieces that are the same for every
// project on this machine (the PyTorch extension's Python entry for one torch and Python, the
// ONNX Runtime session binding for one Node and ONNX Runtime), made once and reused by every
// project's `opforge test`. Keyed by what they are built from; deleting it costs only a rebuild.

import { homedir } from 'node:os';
import path from 'node:path';

/** $OPFORGE_CACHE_DIR, else $XDG_CACHE_HOME/opforge, else ~/.cache/opforge. */
export function machineCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OPFORGE_CACHE_DIR) return path.resolve(env.OPFORGE_CACHE_DIR);
  return path.join(env.XDG_CACHE_HOME ? path.resolve(env.XDG_CACHE_HOME) : path.join(homedir(), '.cache'), 'opforge');
}
