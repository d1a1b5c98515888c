// `opforge test --watch` in a project outside the repo (the node and jax columns): the first run,
// then one run per change. A kernel edit that breaks a value fails the next run on both columns:
// the change is picked up, and the JAX harness, run in the interpreter the watch started ahead
// (the run says it took one), loads the rebuilt library. Undoing the edit passes again. Interrupting it ends it with the last run's status and stops every
// interpreter it started.

import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { fixtures, root } from './helpers/paths.js';
import { PYTHON, testWith } from './helpers/python.js';

interface Report {
  ok: boolean;
  results: { op: string; backend: string; status: string; compared?: string }[];
}

/** The watch's stdout reports (one JSON line each) and stderr, as they come. */
class Watch {
  readonly reports: Report[] = [];
  stderr = '';
  readonly exit: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(dir: string) {
    this.child = spawn(
      process.execPath,
      [path.join(root, 'dist', 'cli', 'opforge.js'), 'test', '--watch', '--json', '--backend', 'node,jax'],
      { cwd: dir, env: { ...process.env, OPFORGE_PYTHON: PYTHON }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
        this.reports.push(JSON.parse(out.slice(0, i)) as Report);
        out = out.slice(i + 1);
      }
    });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.stderr += d;
    });
    this.exit = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
  }

  /** The n-th report (1-based) once the watch is waiting again after it, and its status line. */
  async run(n: number, timeoutS = 300): Promise<{ report: Report; line: string }> {
    const start = Date.now();
    for (;;) {
      const lines = this.stderr.split('\n').filter((l) => l.includes('waiting for changes'));
      if (this.reports.length >= n && lines.length >= n) return { report: this.reports[n - 1]!, line: lines[n - 1]! };
      if (Date.now() - start > timeoutS * 1000)
        throw new Error(`no run ${n} after ${timeoutS} s:\n${this.stderr.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  stop(): void {
    this.child.kill('SIGINT');
  }
}

testWith(
  ['torch', 'jax'],
  'opforge test --watch: runs on each change, catches a broken kernel in the interpreter it started ahead, stops cleanly',
  async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-watch-'));
    cpSync(path.join(fixtures, 'user-ops', 'ops', 'channel_scale.yaml'), path.join(dir, 'ops', 'channel_scale.yaml'));
    for (const f of ['channel_scale.cpp', 'channel_scale.cu', 'channel_scale_ref.py'])
      cpSync(path.join(fixtures, 'user-ops', 'ops', 'kernels', f), path.join(dir, 'ops', 'kernels', f));
    const kernel = path.join(dir, 'ops', 'kernels', 'channel_scale.cpp');
    const good = readFileSync(kernel, 'utf8');
    const column = (r: Report, b: string) => r.results.filter((x) => x.backend === b);
    const w = new Watch(dir);
    try {
      const first = await w.run(1);
      assert.ok(first.report.ok, JSON.stringify(first.report.results));
      for (const b of ['node', 'jax']) {
        assert.ok(column(first.report, b).length > 0, b);
        assert.ok(
          column(first.report, b).every((x) => x.status === 'ok' && x.compared === 'reference'),
          JSON.stringify(column(first.report, b)),
        );
      }

      // The kernel off by one where the bias is added: the cases with a bias fail, on both columns.
      const broken = good.replace('* factor + offset)', '* factor + offset + 1.0f)');
      assert.ok(broken !== good, 'the kernel line to break was not found');
      writeFileSync(kernel, broken);
      const second = await w.run(2);
      assert.not.ok(second.report.ok);
      for (const b of ['node', 'jax'])
        assert.ok(
          column(second.report, b).some((x) => x.status === 'fail'),
          JSON.stringify(column(second.report, b)),
        );
      assert.match(second.line, /the run took 1 Python side\(s\) started ahead/);

      writeFileSync(kernel, good);
      const third = await w.run(3);
      assert.ok(third.report.ok, JSON.stringify(third.report.results));
    } finally {
      w.stop();
    }
    assert.is(await w.exit, 0, w.stderr.slice(-2000));
    // Every interpreter it started has ended.
    const left = await new Promise<string>((resolve) => {
      const ps = spawn('ps', ['-eo', 'args'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let s = '';
      ps.stdout.setEncoding('utf8').on('data', (d: string) => {
        s += d;
      });
      ps.on('close', () => resolve(s));
    });
    assert.not.ok(
      left.split('\n').some((l) => l.includes('opforge_session.py') && l.includes(dir)),
      left,
    );
    assert.ok(existsSync(path.join(dir, 'build', 'test')));
  },
);

test.run();
