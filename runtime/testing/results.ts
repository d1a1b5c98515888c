// What `opforge test` finds: one result per op, case and backend, what was skipped and why,
// and the two ways it is shown (a table of op x backend, or JSON).

export type Status = 'ok' | 'fail' | 'skip';

export interface CaseResult {
  op: string;
  /** Index of the spec `tests:` case; null for a result about the whole op (e.g. its build). */
  case: number | null;
  backend: string;
  status: Status;
  /** Largest |got - expected| over the case's outputs (ok and failed comparisons). */
  maxError?: number;
  message?: string;
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
}

function cell(rs: CaseResult[]): string {
  if (!rs.length) return '-';
  const fails = rs.filter((r) => r.status === 'fail').length;
  const skips = rs.filter((r) => r.status === 'skip').length;
  const ran = rs.length - skips;
  const err = Math.max(0, ...rs.filter((r) => r.maxError !== undefined && !Number.isNaN(r.maxError)).map((r) => r.maxError!));
  if (fails) return `FAIL ${fails}/${ran}`;
  if (!ran) return 'skip';
  return `ok ${ran}${skips ? ` (+${skips} skip)` : ''} ${err ? err.toExponential(1) : '0'}`;
}

/** The op x backend table (cells: cases ok and the largest error, or failures), then skips and failures in full. */
export function formatReport(r: TestReport): string {
  const ops = [...new Set(r.results.map((x) => x.op))];
  const head = ['op', ...r.backends];
  const rows = ops.map((op) => [op, ...r.backends.map((b) => cell(r.results.filter((x) => x.op === op && x.backend === b)))]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), '(cells: cases that agree, and the largest |got - expected|)'];
  const skippedCases = r.results.filter((x) => x.status === 'skip');
  if (Object.keys(r.skipped).length || skippedCases.length) {
    out.push('', 'skipped:');
    for (const [b, why] of Object.entries(r.skipped)) out.push(`  ${b}: ${why}`);
    const reasons = new Map<string, number>();
    for (const s of skippedCases) reasons.set(`${s.op} [${s.backend}]: ${s.message ?? ''}`, (reasons.get(`${s.op} [${s.backend}]: ${s.message ?? ''}`) ?? 0) + 1);
    for (const [k, n] of reasons) out.push(`  ${k}${n > 1 ? ` (${n} cases)` : ''}`);
  }
  const fails = r.results.filter((x) => x.status === 'fail');
  if (fails.length) {
    out.push('', `${fails.length} failure(s):`);
    for (const f of fails) out.push(`  ${f.op} case ${f.case ?? '-'} [${f.backend}]: ${f.message ?? ''}`);
  }
  if (typeof r.env.error === 'string') out.push('', r.env.error);
  const cases = new Set(r.results.filter((x) => x.case !== null).map((x) => `${x.op}#${x.case}`)).size;
  out.push('', `opforge test: ${ops.length} op(s), ${cases} case(s), ${r.backends.length} backend(s): ${r.ok ? 'all agree' : fails.length ? `${fails.length} failure(s)` : 'FAILED'}`);
  return out.join('\n');
}
