// npm test's one question per leg to its Python (test/helpers/python-probe.ts): a file takes the
// answer only for the Python it was asked of, and asks itself otherwise; the answer is what
// `python -c "import m"` says, module by module.

import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROBE_ENV, PROBED_MODULES, probePython, readProbe } from '../helpers/python-probe.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'opforge-probe-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

test('the answer is read for the Python it was asked of, and only for it', () => {
  const probe = { python: '/venv/bin/python3', torch: '2.13.0+cpu', modules: { torch: true, paddle: false } };
  const env = { [PROBE_ENV]: JSON.stringify(probe) };
  assert.equal(readProbe(env, '/venv/bin/python3'), probe);
  assert.is(readProbe(env, '/usr/bin/python3'), undefined);
  assert.is(readProbe({}, '/venv/bin/python3'), undefined);
  assert.is(readProbe({ [PROBE_ENV]: '{not json' }, '/venv/bin/python3'), undefined);
});

test('a Python that imports some modules and not others: each answered apart, torch with its version', () => {
  // A fake interpreter: `-c "import m; print(...)"` succeeds for torch (printing a version) and jax.
  const py = path.join(tmp, 'python');
  writeFileSync(
    py,
    [
      '#!/bin/sh',
      'case "$2" in',
      '  "import torch;"*) echo 9.9.9; exit 0 ;;',
      '  "import jax;"*) exit 0 ;;',
      '  *) exit 1 ;;',
      'esac',
      '',
    ].join('\n'),
  );
  chmodSync(py, 0o755);
  const p = probePython(py);
  assert.is(p.python, py);
  assert.is(p.torch, '9.9.9');
  assert.equal(Object.keys(p.modules).sort(), [...PROBED_MODULES].sort());
  assert.equal(p.modules, { torch: true, paddle: false, jax: true, onnx: false });
  // No such interpreter: nothing importable, no torch version.
  const none = probePython(path.join(tmp, 'absent-python'));
  assert.is(none.torch, '');
  assert.ok(Object.values(none.modules).every((ok) => !ok));
});

test.run();
