// runTests as `opforge test` calls it: out/ brought up to date first by the incremental gen.

import { generateIncremental } from '../../generator/output/incremental.js';
import { runTests as run, type TestOptions } from '../../runtime/testing/run.js';
import type { TestReport } from '../../runtime/testing/results.js';

export type { Backend } from '../../runtime/testing/run.js';

export function runTests(opts: TestOptions = {}): Promise<TestReport> {
  return run({
    regenerate: (dirs) => {
      generateIncremental(dirs);
    },
    ...opts,
  });
}
