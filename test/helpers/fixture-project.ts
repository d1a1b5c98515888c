// A fixture's project (test/fixtures/<name>/ops copied into a temporary folder), made on first use
// and kept for the test file: later tests reuse what the first one built (a kernel edit then
// rebuilds that kernel and relinks, not every binding). Removed when the file's tests end.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { fixtures } from './paths.js';

/** `() => dir` of test/fixtures/<name>'s project, made once. */
export function fixtureProject(name: string): () => string {
  let made: string | undefined;
  test.after(() => {
    if (made) rmSync(made, { recursive: true, force: true });
  });
  return () => {
    if (!made) {
      made = mkdtempSync(path.join(os.tmpdir(), `opforge-${name}-`));
      cpSync(path.join(fixtures, name, 'ops'), path.join(made, 'ops'), { recursive: true });
    }
    return made;
  };
}
