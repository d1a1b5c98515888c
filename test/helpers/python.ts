// The Python with Debian's torch and onnx (the pyenv python3 on PATH has neither).
import { spawnSync } from 'node:child_process';

export const PYTHON = process.env.OPFORGE_PYTHON ?? '/usr/bin/python3';

export function python(code: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(PYTHON, ['-c', code, ...args], { encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env }, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`python failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
