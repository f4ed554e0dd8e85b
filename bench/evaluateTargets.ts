// The targets onejob is held to, as ratios against the raw limit and the peers measured
// in the same run (absolute numbers move with the machine; ratios mostly do not).

import type { ScenarioRecord, TargetRecord } from './benchResult.js';
import { round } from './latencyStats.js';

export function evaluateTargets(scenarios: ScenarioRecord[]): TargetRecord[] {
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
  const a16 = scenarios.find((x) => x.id === 'a16');
  const p99 = a16?.status === 'ok' && a16.result?.ops ? a16.result.p99Ms : undefined;
  const rss = scenarios
    .map((s) => s.serverRssMb)
    .filter((x): x is number => typeof x === 'number' && !Number.isNaN(x));
  const peakRss = rss.length ? Math.max(...rss) : undefined;
  return [
    ratio('create-vs-raw', 'create (a) ≥ 0.6 × raw create SQL (f)', 'a64', 'f-create', 0.6),
    ratio('create-vs-pgboss', 'create (a) ≥ 1.5 × pg-boss send', 'a64', 'g-pgboss', 1.5),
    ratio('replay-vs-raw', 'replay (b) ≥ 0.5 × raw duplicate lookup', 'b', 'f-lookup', 0.5),
    ratio('claim-vs-raw', 'claim+complete (d) ≥ 0.7 × raw claim+complete SQL', 'd', 'f-claim', 0.7),
    ratio('claim-vs-graphile', 'claim+complete (d) ≥ 1.0 × graphile-worker no-op', 'd', 'g-gw-noop', 1.0),
    ratio('relay-vs-jetstream', 'relay (e) ≥ 0.5 × raw JetStream publish', 'e', 'e-raw', 0.5),
    {
      id: 'create-p99',
      description: 'create p99 at concurrency 16 < 50 ms',
      value: p99,
      threshold: 50,
      unit: 'ms',
      pass: p99 === undefined ? undefined : p99 < 50,
    },
    {
      id: 'server-rss',
      description: 'server RSS (peak) < 200 MB',
      value: peakRss,
      threshold: 200,
      unit: 'MB',
      pass: peakRss === undefined ? undefined : peakRss < 200,
    },
  ];
}
