// The human-readable result: one row per scenario, then one per target.
import type { BenchRun } from './benchResult.js';

const num = (n: number | undefined, digits = 0) =>
  n === undefined || Number.isNaN(n)
    ? '-'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function table(head: string[], rows: string[][], rightAlign: boolean[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (rightAlign[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (rightAlign[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}

/** Markdown tables, so the output pastes straight into docs/benchmarks.md. */
export function formatTable(run: BenchRun): string {
  const scenarioRows = run.scenarios.map((s) => {
    const r = s.result;
    const ok = s.status === 'ok' && r;
    return [
      s.id,
      s.title,
      s.concurrency === undefined ? '-' : String(s.concurrency),
      ok ? num(r.throughput) : s.status,
      ok ? num(r.p50Ms, 1) : '-',
      ok ? num(r.p99Ms, 1) : '-',
      ok ? num(r.maxMs, 1) : '-',
      ok ? String(r.errors) : '-',
      num(s.serverRssMb),
      s.note ?? '',
    ];
  });
  const targetRows = run.targets.map((t) => [
    t.description,
    t.value === undefined ? '-' : t.unit === 'x' ? `${t.value.toFixed(2)}×` : `${num(t.value, 1)} ${t.unit}`,
    t.pass === undefined ? 'n/a' : t.pass ? 'PASS' : 'FAIL',
  ]);
  return [
    table(
      ['id', 'scenario', 'conc.', 'ops/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'server RSS MB', 'note'],
      scenarioRows,
      [false, false, true, true, true, true, true, true, true, false],
    ),
    '',
    table(['target', 'measured', 'result'], targetRows, [false, true, false]),
  ].join('\n');
}
