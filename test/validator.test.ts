// The validator against a corpus of bad specs: each file in test/fixtures/bad/ops states the
// errors it must produce (`# expect: line:col key.path message|hint`), and gets exactly those.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SpecErrors, formatDiagnostic, type Diagnostic } from '../generator/diagnostics.js';
import { listSpecFiles } from '../generator/load.js';
import { loadProject } from '../generator/project.js';
import { fixtures } from './helpers/paths.js';

const opsDir = path.join(fixtures, 'bad', 'ops');

function allDiagnostics(): Diagnostic[] {
  try {
    loadProject({ opsDir, root: path.join(fixtures, 'bad') });
  } catch (e) {
    if (e instanceof SpecErrors) return e.diagnostics;
    throw e;
  }
  throw new Error('the bad corpus validated');
}

const diags = allDiagnostics();

for (const file of listSpecFiles(opsDir)) {
  const base = path.basename(file);
  test(`bad spec ${base}`, () => {
    const expects = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('# expect: '))
      .map((l) => {
        const m = /^# expect: (\d+):(\d+) (\S+) (.*)$/.exec(l);
        if (!m) throw new Error(`bad expect line in ${base}: ${l}`);
        const [msg, hint] = m[4]!.split('|');
        return { line: Number(m[1]), col: Number(m[2]), path: m[3]!, msg: msg!, hint };
      });
    if (base.startsWith('valid_')) { assert.is(diags.filter((d) => path.basename(d.file) === base).length, 0); return; }
    assert.ok(expects.length > 0, `${base} states no expectations`);
    const mine = diags.filter((d) => path.basename(d.file) === base);
    const shown = mine.map((d) => formatDiagnostic(d)).join('\n');
    assert.is(mine.length, expects.length, `${base}: expected ${expects.length} errors, got:\n${shown}`);
    for (const x of expects) {
      const hit = mine.find((d) => d.line === x.line && d.col === x.col && d.path === x.path && d.message.includes(x.msg));
      assert.ok(hit, `${base}: no error ${x.line}:${x.col} ${x.path} "${x.msg}" among:\n${shown}`);
      if (x.hint) assert.ok(`${hit.message} ${hit.hint ?? ''}`.includes(x.hint), `${base}: hint "${x.hint}" missing: ${formatDiagnostic(hit)}`);
      assert.ok(hit.file.endsWith(path.join('bad', 'ops', base)), `file is named: ${hit.file}`);
    }
  });
}

test('good seed ops validate', () => {
  const project = loadProject({ opsDir: path.join(fixtures, '..', '..', 'ops') });
  assert.equal(project.ops.map((o) => o.name), ['CustomRelu', 'DynamicTRTResize', 'KNNQuery', 'LeakyRelu', 'MyAdd']);
});

test.run();
