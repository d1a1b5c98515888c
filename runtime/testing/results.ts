// What `opforge test` finds: one result per op, case and backend, what was skipped and why,
// and the two ways it is shown (a table of op x backend, or JSON).

/**
 * ok: agrees with what it was compared with (or, for an op without backward, raised the named
 * error); fail: disagrees or broke; skip: did not run (reason in message); base: ran, and is what
 * the other backends are compared with (the spec has no reference): nothing checked this cell;
 * cannot: the spec itself rules the cell out and the op raised its clear error there (an op that
 * runs on CUDA but whose gradient op has no CUDA kernel, in grad:cuda): not a failure.
 */
export type Status = 'ok' | 'fail' | 'skip' | 'base' | 'cannot';

export interface CaseResult {
  op: string;
  /** Index of the spec `tests:` case; null for a result about the whole op (e.g. its build). */
  case: number | null;
  backend: string;
  status: Status;
  /** Largest |got - expected| over the case's outputs (ok and failed comparisons). */
  maxError?: number;
  message?: string;
  /** What an ok or failed comparison was made against: the spec's reference, or another backend's output. */
  compared?: 'reference' | 'backends';
  /** An ok that is the error the spec promises (an op without backward asked for a gradient), not a comparison. */
  raised?: true;
  /** Not run because another op's kernel broke the shared build: that op's name. */
  blockedBy?: string;
}

/** How the cases were checked: with the reference, only between backends, or not at all. */
export interface CaseSummary {
  cases: number;
  reference: number;
  backends: number;
  nothing: number;
}

export interface TestReport {
  ok: boolean;
  /** Backend columns in the order they ran. */
  backends: string[];
  results: CaseResult[];
  /** Backends not run at all, with the reason (no torch, no GPU, a package not installed). */
  skipped: Record<string, string>;
  /** What ran them: torch and onnx versions, ONNX Runtime, the extension's path. */
  env: Record<string, unknown>;
  summary: CaseSummary;
}

/** Each case counts once: compared with the reference if any backend was, else between backends if any was, else nothing. */
export function summarize(results: readonly CaseResult[]): CaseSummary {
  const how = new Map<string, 'reference' | 'backends' | 'nothing'>();
  for (const r of results) {
    if (r.case === null) continue;
    const key = `${r.op}#${r.case}`;
    const was = how.get(key) ?? 'nothing';
    const now = (r.status === 'ok' || r.status === 'fail') && r.compared ? r.compared : 'nothing';
    if (now === 'reference' || (now === 'backends' && was === 'nothing')) how.set(key, now);
    else how.set(key, was);
  }
  const n = (k: string) => [...how.values()].filter((v) => v === k).length;
  return { cases: how.size, reference: n('reference'), backends: n('backends'), nothing: n('nothing') };
}

function cell(rs: CaseResult[]): string {
  if (!rs.length) return '-';
  const fails = rs.filter((r) => r.status === 'fail').length;
  const cannots = rs.filter((r) => r.status === 'cannot').length;
  if (cannots && !fails) {
    const rest = cell(rs.filter((r) => r.status !== 'cannot'));
    return rest === '-' ? `cannot ${cannots}` : `${rest} +${cannots} cannot`;
  }
  const skips = rs.filter((r) => r.status === 'skip').length;
  const bases = rs.filter((r) => r.status === 'base').length;
  const ran = rs.length - skips;
  const oks = ran - bases;
  const err = Math.max(
    0,
    ...rs.filter((r) => r.maxError !== undefined && !Number.isNaN(r.maxError)).map((r) => r.maxError!),
  );
  if (fails) return `FAIL ${fails}/${ran}`;
  if (!ran) return rs.every((r) => r.blockedBy) ? 'not run' : 'skip';
  const extra = [bases && oks ? `+${bases} base` : '', skips ? `+${skips} skip` : ''].filter(Boolean).join(', ');
  if (!oks) return `base ${bases}${skips ? ` (+${skips} skip)` : ''}`;
  if (rs.every((r) => r.status !== 'ok' || r.raised)) return `raises ${oks}${skips ? ` (+${skips} skip)` : ''}`;
  return `ok ${oks}${extra ? ` (${extra})` : ''} ${err ? err.toExponential(1) : '0'}`;
}

/** `  Op [backend]: message (N cases)`, one line per distinct op, backend and message. */
function reasonLines(rs: readonly CaseResult[]): string[] {
  const counts = new Map<string, number>();
  for (const x of rs) {
    const k = `${x.op} [${x.backend}]: ${x.message ?? ''}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `  ${k}${n > 1 ? ` (${n} cases)` : ''}`);
}

/** The op x backend table (cells: cases ok and the largest error, or failures), then skips and failures in full. */
export function formatReport(r: TestReport): string {
  const ops = [...new Set(r.results.map((x) => x.op))];
  const head = ['op', ...r.backends];
  const rows = ops.map((op) => [
    op,
    ...r.backends.map((b) => cell(r.results.filter((x) => x.op === op && x.backend === b))),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const out = [
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '(cells: cases that agree, and the largest |got - expected|; base: the output the others are compared with, itself unchecked;',
    ' raises: no backward, and asking for a gradient raises the named error; cannot: the spec rules it out, e.g. no CUDA gradient kernel)',
  ];
  const blocked = r.results.filter((x) => x.status === 'skip' && x.blockedBy);
  const skippedCases = r.results.filter((x) => x.status === 'skip' && !x.blockedBy);
  if (Object.keys(r.skipped).length || skippedCases.length) {
    out.push('', 'skipped:');
    for (const [b, why] of Object.entries(r.skipped)) out.push(`  ${b}: ${why}`);
    out.push(...reasonLines(skippedCases));
  }
  const cannot = r.results.filter((x) => x.status === 'cannot');
  if (cannot.length) out.push('', 'cannot (the spec rules these out; not failures):', ...reasonLines(cannot));
  if (blocked.length) {
    out.push('', 'not run (another op broke the build they share):');
    const by = new Map<string, { ops: Set<string>; backends: Set<string> }>();
    for (const b of blocked) {
      const g = by.get(b.message ?? '') ?? { ops: new Set(), backends: new Set() };
      g.ops.add(b.op);
      g.backends.add(b.backend);
      by.set(b.message ?? '', g);
    }
    for (const [message, g] of by) out.push(`  ${[...g.ops].join(', ')} [${[...g.backends].join(', ')}]: ${message}`);
  }
  const fails = r.results.filter((x) => x.status === 'fail');
  if (fails.length) {
    out.push('', `${fails.length} failure(s):`);
    for (const f of fails) out.push(`  ${f.op} case ${f.case ?? '-'} [${f.backend}]: ${f.message ?? ''}`);
  }
  if (typeof r.env.error === 'string') out.push('', r.env.error);
  const py = r.env.python as ({ path: string; from: string } & Record<string, string>) | undefined;
  if (py) {
    const versions = Object.entries(py)
      .filter(([k]) => k !== 'path' && k !== 'from')
      .map(([k, v]) => `${k} ${v}`);
    out.push('', `python: ${py.path} (found through ${py.from})${versions.length ? `: ${versions.join(', ')}` : ''}`);
  }
  const s = r.summary;
  const how = `${s.reference} compared with the reference, ${s.backends} only between backends, ${s.nothing} with nothing`;
  const verdict = !r.ok
    ? fails.length
      ? `${fails.length} failure(s)`
      : 'FAILED'
    : s.nothing
      ? `no disagreement, but ${s.nothing} case(s) were compared with nothing`
      : 'all agree';
  out.push(
    '',
    `opforge test: ${ops.length} op(s), ${s.cases} case(s), ${r.backends.length} backend(s): ${verdict} (${how})`,
  );
  return out.join('\n');
}
