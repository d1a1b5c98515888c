// Which compiled files uvu should run: dist/test/**/*.test.js, not the .d.ts files and helper
// modules beside them. tsc never deletes what it emitted: a test file moved or removed in test/
// leaves its old .test.js behind, which uvu would run too (twice, for a moved file). What is not
// to run is passed to uvu as ignores.

import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { root } from './paths.js';

/** Compiled test files (relative to dist/test, forward slashes), with whether their source in test/ is gone. */
function compiled(): { file: string; stale: boolean }[] {
  const dist = path.join(root, 'dist', 'test');
  if (!existsSync(dist)) return [];
  return readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .map((p) => p.split(path.sep).join('/'))
    .filter((p) => p.endsWith('.test.js'))
    .sort()
    .map((file) => ({ file, stale: !existsSync(path.join(root, 'test', file.replace(/\.js$/, '.ts'))) }));
}

/** Compiled test files (relative to dist/test, forward slashes) whose source in test/ is gone. */
export function staleTests(): string[] {
  return compiled()
    .filter((c) => c.stale)
    .map((c) => c.file);
}

/** The compiled test files to run (relative to dist/test, forward slashes): those whose source is there. */
export function currentTests(): string[] {
  return compiled()
    .filter((c) => !c.stale)
    .map((c) => c.file);
}

/**
 * uvu's `-i` arguments (its ignores are case-insensitive regexes over paths under the dir it
 * walks) that keep it to the compiled test files: not the declaration files tsc writes beside
 * them or helper modules, which a pattern such as `unit/` would match too, nor the stale files.
 */
export function testFileIgnoreArgs(under = ''): string[] {
  const prefix = under ? `${under}/` : '';
  return [
    '-i',
    '(?<!\\.test)\\.js$|\\.ts$',
    ...staleTests()
      .filter((p) => p.startsWith(prefix))
      .flatMap((p) => ['-i', `^${p.slice(prefix.length).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`]),
  ];
}
