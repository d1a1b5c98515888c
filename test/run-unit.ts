// `npm run test:unit`'s runner: uvu over dist/test/unit only, the in-process tier (no compilers,
// no Python, no network). `npm test` runs these files too, with everything else.
//
//   node dist/test/run-unit.js [pattern]       (default: every *.test.js under dist/test/unit)

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { testFileIgnoreArgs } from './helpers/compiled-tests.js';
import { root } from './helpers/paths.js';

const pattern = process.argv[2] ?? '\\.test\\.js$';
const r = spawnSync(
  path.join(root, 'node_modules', '.bin', 'uvu'),
  ['dist/test/unit', pattern, ...testFileIgnoreArgs('unit')],
  { cwd: root, stdio: 'inherit' },
);
process.exit(r.status ?? 1);
