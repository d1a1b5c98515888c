// Which compiled test files uvu should run. tsc never deletes what it emitted: a test file moved or
// removed in test/ leaves its old dist/test/**/*.test.js behind, which uvu would run too (twice,
// for a moved file). Those files are passed to uvu as ignores.

import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { root } from './paths.js';

/** Compiled test files (relative to dist/test, forward slashes) whose source in test/ is gone. */
export function staleTests(): string[] {
  const dist = path.join(root, 'dist', 'test');
  if (!existsSync(dist)) return [];
  return readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .map((p) => p.split(path.sep).join('/'))
    .filter((p) => p.endsWith('.test.js') && !existsSync(path.join(root, 'test', p.replace(/\.js$/, '.ts'))))
    .sort();
}

/** uvu's `-i` arguments that leave the stale files out (its ignores are regexes over paths under the dir). */
export function staleIgnoreArgs(under = ''): string[] {
  const prefix = under ? `${under}/` : '';
  return staleTests()
    .filter((p) => p.startsWith(prefix))
    .flatMap((p) => ['-i', `^${p.slice(prefix.length).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`]);
}
