// `opforge gen --watch` regenerates on a spec or package.json change and shows errors without writing.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { opsDir, root } from './helpers/paths.js';

test('watch mode regenerates on change and reports errors in place', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-watch-'));
  cpSync(opsDir, path.join(dir, 'ops'), { recursive: true });
  const child = spawn(process.execPath, [path.join(root, 'dist', 'cli', 'opforge.js'), 'gen', '--watch'], { cwd: dir });
  let log = '';
  child.stdout.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const waitFor = async (re: RegExp, ms = 8000): Promise<void> => {
    const t0 = Date.now();
    while (!re.test(log)) {
      if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${re}; log:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await waitFor(/9 op\(s\): \d+ written/);
    const spec = path.join(dir, 'ops', 'my_add.yaml');
    const good = readFileSync(spec, 'utf8');
    log = '';
    writeFileSync(spec, good.replace('dtype: T\n    shape: a', 'dtype: Q\n    shape: a'));
    await waitFor(/unknown dtype or type variable `Q`[\s\S]*out\/ left as it was/);
    log = '';
    writeFileSync(spec, good.replace('2 * a + b for', '2 * a + b, for'));
    await waitFor(/9 op\(s\): [1-9]\d* written/);
    assert.match(
      readFileSync(path.join(dir, 'out', 'include', 'opforge', 'ops', 'my_add.h'), 'utf8'),
      /2 \* a \+ b, for/,
    );
    // Atomic saves (a temp file renamed over the spec, as vim and VS Code write): every one is seen.
    // Node's recursive watching on Linux lost the spec after the first such save.
    for (let i = 1; i <= 4; i++) {
      log = '';
      writeFileSync(`${spec}.tmp`, good.replace('2 * a + b for', `2 * a + b (save ${i}) for`));
      renameSync(`${spec}.tmp`, spec);
      await waitFor(/9 op\(s\): [1-9]\d* written/);
      assert.match(readFileSync(path.join(dir, 'out', 'include', 'opforge', 'ops', 'my_add.h'), 'utf8'), `(save ${i})`);
    }
    // package.json's namespace names the packages: a change to it regenerates under the new names.
    log = '';
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'w', opforge: { namespace: 'watched_ops' } }));
    await waitFor(/9 op\(s\): [1-9]\d* written/);
    assert.ok(existsSync(path.join(dir, 'out', 'python', 'watched_ops', '__init__.py')), log);
    assert.not.ok(existsSync(path.join(dir, 'out', 'python', 'opforge_ops')), 'the old package folder is removed');
    // A kernel in a directory made after the watch began is seen too.
    log = '';
    mkdirSync(path.join(dir, 'ops', 'kernels', 'more'));
    await new Promise((r) => setTimeout(r, 200));
    writeFileSync(path.join(dir, 'ops', 'kernels', 'more', 'note.txt'), 'x');
    await waitFor(/\] (9 op\(s\)|up to date)/);
  } finally {
    child.kill();
  }
});

test.run();
