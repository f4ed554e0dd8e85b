// The soak's samples as one SVG picture (hand-written, no dependency): four panels over
// time, RSS per process, event-loop delay p99 per process, database connections, and the
// outbox backlog with unknown and open jobs.
import type { SoakVerdict } from './judgeSoak.js';
import type { SoakSample } from './sampleCluster.js';

const W = 860;
const PANEL_H = 170;
const LEFT = 60;
const RIGHT = 170;
const TOP = 72;
const GAP = 46;
const COLOURS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#ff7f0e',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#7f7f7f',
];

interface Series {
  name: string;
  points: [number, number][];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const round = (n: number) => Math.round(n * 10) / 10;

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function panel(
  title: string,
  unit: string,
  series: Series[],
  top: number,
  spanMs: number,
  baselineMs?: number,
) {
  const plotW = W - LEFT - RIGHT;
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.points.map((p) => p[1]))) * 1.1);
  const x = (ms: number) => LEFT + (spanMs > 0 ? (ms / spanMs) * plotW : 0);
  const y = (v: number) => top + PANEL_H - (v / max) * PANEL_H;
  const out: string[] = [
    `<text x="${LEFT}" y="${top - 8}" font-weight="bold">${esc(title)} (${esc(unit)})</text>`,
    `<rect x="${LEFT}" y="${top}" width="${plotW}" height="${PANEL_H}" fill="none" stroke="#bbb"/>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = (max / 4) * i;
    out.push(
      `<line x1="${LEFT}" x2="${LEFT + plotW}" y1="${round(y(v))}" y2="${round(y(v))}" stroke="#eee"/>`,
      `<text x="${LEFT - 6}" y="${round(y(v)) + 4}" text-anchor="end" font-size="11">${round(v)}</text>`,
    );
  }
  const minutes = Math.max(1, Math.floor(spanMs / 60_000));
  const step = Math.max(1, Math.ceil(minutes / 10));
  for (let m = 0; m <= minutes; m += step)
    out.push(
      `<text x="${round(x(m * 60_000))}" y="${top + PANEL_H + 14}" text-anchor="middle" font-size="11">${m} min</text>`,
    );
  if (baselineMs !== undefined)
    out.push(
      `<line x1="${round(x(baselineMs))}" x2="${round(x(baselineMs))}" y1="${top}" y2="${top + PANEL_H}" stroke="#999" stroke-dasharray="4 3"/>`,
    );
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const pts = s.points.map(([t, v]) => `${round(x(t))},${round(y(v))}`).join(' ');
    out.push(`<polyline fill="none" stroke="${colour}" stroke-width="1.8" points="${pts}"/>`);
    for (const [t, v] of s.points)
      out.push(`<circle cx="${round(x(t))}" cy="${round(y(v))}" r="2.2" fill="${colour}"/>`);
    out.push(
      `<rect x="${LEFT + plotW + 14}" y="${top + i * 16}" width="10" height="10" fill="${colour}"/>`,
      `<text x="${LEFT + plotW + 30}" y="${top + i * 16 + 9}" font-size="11">${esc(s.name)}</text>`,
    );
  });
  return out.join('\n');
}

export function drawSoakChart(
  samples: SoakSample[],
  o: { title: string; command: string; verdict: SoakVerdict },
): string {
  const span = samples.at(-1)?.atMs ?? 0;
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.processes)))].sort();
  const perProcess = (pick: (p: NonNullable<SoakSample['processes'][string]>) => number): Series[] =>
    names.map((name) => ({
      name,
      points: samples.flatMap((s) => {
        const p = s.processes[name];
        return p ? [[s.atMs, pick(p)] as [number, number]] : [];
      }),
    }));
  const of = (name: string, pick: (s: SoakSample) => number): Series => ({
    name,
    points: samples.map((s) => [s.atMs, pick(s)]),
  });
  const top = (i: number) => TOP + i * (PANEL_H + GAP);
  const height = top(4) + 10;
  const v = o.verdict;
  const verdict = v.passed
    ? `PASS: RSS growth from the dashed line to the end under 10 % for every process; backlog at most ${v.maxBacklog} (limit ${v.backlogLimit})`
    : `FAIL: ${v.reasons.slice(0, 2).join('; ')}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${esc(o.title)}</title>`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${LEFT}" y="20" font-size="15" font-weight="bold">${esc(o.title)}</text>`,
    `<text x="${LEFT}" y="38" font-size="11">${esc(o.command)} | ${esc(verdict)}</text>`,
    panel(
      'RSS per process',
      'MB',
      perProcess((p) => p.rssMb),
      top(0),
      span,
      v.baselineAtMs,
    ),
    panel(
      'Event-loop delay p99 per process',
      'ms',
      perProcess((p) => p.loopP99Ms),
      top(1),
      span,
    ),
    panel('PostgreSQL connections', 'count', [of('pg_stat_activity', (s) => s.dbConnections)], top(2), span),
    panel(
      'Backlog',
      'count',
      [
        of('outbox pending', (s) => s.outboxBacklog),
        of('jobs open', (s) => s.openJobs),
        of('jobs unknown', (s) => s.unknownJobs),
      ],
      top(3),
      span,
    ),
    '</svg>',
    '',
  ].join('\n');
}
