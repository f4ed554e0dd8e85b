// The targets onejob is held to, as ratios against the raw limit and the peers measured
// in the same run (absolute numbers move with the machine; ratios mostly do not).

import type { ScenarioRecord, TargetRecord } from './benchResult.js';
import { round } from './latencyStats.js';

export function evaluateTargets(
  scenarios: ScenarioRecord[],
  server: 'tsx' | 'dist' = 'dist',
): TargetRecord[] {
  const rate = (id: string) => {
    const s = scenarios.find((x) => x.id === id);
    return s?.status === 'ok' && s.result && s.result.ops > 0 ? s.result.throughput : undefined;
  };
  const ratio = (
    id: string,
    description: string,
    ours: string,
    theirs: string,
    threshold: number,
  ): TargetRecord => {
    const a = rate(ours);
    const b = rate(theirs);
    const value = a !== undefined && b !== undefined && b > 0 ? round(a / b, 2) : undefined;
    return {
      id,
      description,
      value,
      threshold,
      unit: 'x',
      pass: value === undefined ? undefined : value >= threshold,
    };
  };
  // Written per job, ours over graphile-worker's: at most the threshold.
  const perJob = (id: string, description: string, key: 'rowsPerJob' | 'walBytesPerJob'): TargetRecord => {
    const read = (sid: string) => {
      const s = scenarios.find((x) => x.id === sid);
      const v = s?.status === 'ok' ? s.extra?.[key] : undefined;
      return typeof v === 'number' && v > 0 ? v : undefined;
    };
    const a = read('d-cost');
    const b = read('g-gw-cost');
    const value = a !== undefined && b !== undefined ? round(a / b, 2) : undefined;
    return {
      id,
      description,
      value,
      threshold: 2,
      unit: 'x',
      pass: value === undefined ? undefined : value <= 2,
    };
  };
  const p99 = (id: string) => {
    const s = scenarios.find((x) => x.id === id);
    return s?.status === 'ok' && s.result?.ops ? s.result.p99Ms : undefined;
  };
  const below = (
    id: string,
    description: string,
    value: number | undefined,
    threshold: number,
    unit: 'ms' | 'MB',
  ): TargetRecord => ({
    id,
    description,
    value,
    threshold,
    unit,
    pass: value === undefined ? undefined : value < threshold,
  });
  const rss = scenarios
    .map((s) => s.serverRssMb)
    .filter((x): x is number => typeof x === 'number' && !Number.isNaN(x));
  const peakRss = rss.length ? Math.max(...rss) : undefined;
  return [
    ratio(
      'create-vs-raw',
      'create (a) ≥ 0.8 × pgbench create, one job per transaction (f)',
      'a64',
      'f-create',
      0.8,
    ),
    ratio('create-vs-pgboss', 'create (a) ≥ 1.5 × pg-boss send', 'a64', 'g-pgboss', 1.5),
    ratio('library-vs-pgboss', 'library create (g) ≥ 3 × pg-boss send', 'g-lib-create', 'g-pgboss', 3),
    ratio('replay-vs-raw', 'replay (b) ≥ 0.8 × pgbench lookup by (owner, key)', 'b', 'f-lookup', 0.8),
    // Not onejob's: whether HTTP alone, with nothing behind it, reaches the replay's target here.
    ratio(
      'http-ceiling-vs-raw',
      'bare HTTP reply (b-http) ≥ 0.8 × pgbench lookup: the replay target is in reach of HTTP here',
      'b-http',
      'f-lookup',
      0.8,
    ),
    ratio('claim-vs-raw', 'claim+complete (d) ≥ 0.7 × raw claim+complete SQL', 'd', 'f-claim', 0.7),
    ratio('claim-vs-graphile', 'drain, analysed (d) ≥ 1.5 × graphile-worker no-op', 'd', 'g-gw-noop', 1.5),
    ratio(
      'drain-cold-vs-graphile',
      'drain, no ANALYZE (d-cold) ≥ 1.5 × graphile-worker no-op',
      'd-cold',
      'g-gw-noop',
      1.5,
    ),
    ratio(
      'drain-budget-vs-plain',
      'drain with a budget (d-budget) ≥ 0.8 × the unpriced drain (d)',
      'd-budget',
      'd',
      0.8,
    ),
    ratio(
      'drain-budget-vs-priced',
      'drain with a budget (d-budget) ≥ 0.8 × the same priced drain without one (d-priced)',
      'd-budget',
      'd-priced',
      0.8,
    ),
    perJob('rows-vs-graphile', 'rows per job (d-cost) ≤ 2 × graphile-worker', 'rowsPerJob'),
    perJob('wal-vs-graphile', 'WAL bytes per job (d-cost) ≤ 2 × graphile-worker', 'walBytesPerJob'),
    ratio(
      'transfers-batched',
      'transfers, group commit ≥ 1 × one per transaction',
      'h-transfers',
      'h-transfers-alone',
      1,
    ),
    ratio(
      'transfers-hot-batched',
      'transfers into one account, group commit ≥ 1 × one per transaction',
      'h-transfers-hot',
      'h-transfers-hot-alone',
      1,
    ),
    ratio(
      'inbox-batched',
      'webhook deliveries, group commit ≥ 1 × one per transaction',
      'h-inbox',
      'h-inbox-alone',
      1,
    ),
    ratio(
      'pgbouncer-vs-direct',
      'library create through PgBouncer, transaction mode ≥ 0.5 × direct (i)',
      'i-pgbouncer',
      'i-direct',
      0.5,
    ),
    ratio('relay-vs-jetstream', 'relay (e) ≥ 0.5 × raw JetStream publish', 'e', 'e-raw', 0.5),
    below(
      'fair-p99',
      "owner B's create → settled p99 while owner A's backlog drains (fair) < 500 ms",
      p99('fair'),
      500,
      'ms',
    ),
    below('create-p99', 'create p99 at concurrency 16 < 25 ms', p99('a16'), 25, 'ms'),
    below('create-p99-64', 'create p99 at concurrency 64 < 60 ms', p99('a64'), 60, 'ms'),
    below('server-rss', `server RSS (peak, ${server}) < 200 MB`, peakRss, 200, 'MB'),
  ];
}
