// The soak: every role (API, worker, relay, a library-mode process), steady load at about
// half the measured capacity, no faults, for a long time. Capacity is measured first with
// the clients unthrottled (intents per second over the last two thirds of the probe
// window) unless a rate is given. The cluster is sampled at a fixed interval; the samples
// are drawn as an SVG chart and judged (judgeSoak.ts); the chaos checker runs at the end
// as after any chaos run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sleep } from '../../test/helpers/until.js';
import type { Role } from '../faults/buildFaultSchedule.js';
import { runChaos } from '../runChaos.js';
import { drawSoakChart } from './drawSoakChart.js';
import { judgeSoak, type SoakVerdict } from './judgeSoak.js';
import { type SoakSample, sampleCluster } from './sampleCluster.js';

// V8 sizes its young generation with the allocation rate: under steady request load it
// steps between 4 and 32 MB many minutes in, and RSS follows by tens of MB with the heap in
// use flat. Pinned, RSS measures what the process keeps, which is what a soak is for.
export const RECOMMENDED_NODE_FLAGS = ['--min-semi-space-size=16', '--max-semi-space-size=16'];

export interface SoakOptions {
  seed: number;
  durationMs: number;
  /** Intents per second; default half of the capacity measured at the start. */
  ratePerSecond?: number;
  sampleEveryMs?: number;
  capacityProbeMs?: number;
  clients?: number;
  processes?: Record<Role, number>;
  library?: number;
  database?: 'system' | 'embedded';
  resultsDir?: string;
  /** Where the SVG chart goes (default docs/soak.svg). */
  chartPath?: string;
  /**
   * Node flags for every process; default RECOMMENDED_NODE_FLAGS, as docs/operations.md
   * advises for production. `[]` runs Node's defaults.
   */
  nodeFlags?: string[];
  /** The command line, printed on the chart. */
  command: string;
  log?: (line: string) => void;
}

export interface SoakOutcome {
  samples: SoakSample[];
  verdict: SoakVerdict;
  ratePerSecond: number;
  capacityPerSecond: number | null;
  violations: number;
}

export async function runSoak(o: SoakOptions): Promise<SoakOutcome> {
  const log = o.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const every = o.sampleEveryMs ?? 60_000;
  const pace: { perSecond?: number } = { perSecond: o.ratePerSecond ?? 0 };
  const samples: SoakSample[] = [];
  let capacity: number | null = null;
  const outcome = await runChaos({
    seed: o.seed,
    faultMs: 0,
    calmMs: o.durationMs,
    faults: false,
    probes: true,
    nodeFlags: o.nodeFlags ?? RECOMMENDED_NODE_FLAGS,
    pace,
    clients: o.clients ?? 6,
    processes: o.processes ?? { api: 2, worker: 2, relay: 1 },
    library: o.library ?? 1,
    database: o.database ?? 'embedded',
    ...(o.resultsDir ? { resultsDir: o.resultsDir } : {}),
    ...(o.ratePerSecond === undefined ? { thinkMs: 0 } : {}),
    log,
    async steady({ fleet, pool, intents }) {
      if (o.ratePerSecond === undefined) {
        const probeMs = o.capacityProbeMs ?? 30_000;
        log(`capacity probe: ${Math.round(probeMs / 1000)} s with the clients unthrottled`);
        await sleep(probeMs / 3);
        const from = intents();
        const fromAt = Date.now();
        await sleep((probeMs * 2) / 3);
        capacity = Math.round(((intents() - from) / ((Date.now() - fromAt) / 1000)) * 10) / 10;
        pace.perSecond = Math.max(1, Math.round(capacity / 2));
        log(`measured ${capacity} intents/s; holding ${pace.perSecond}/s`);
        // Let the backlog of the probe drain before the first sample.
        await sleep(Math.min(15_000, every));
      }
      const startedAt = Date.now();
      const end = startedAt + o.durationMs;
      for (;;) {
        try {
          const s = await sampleCluster(fleet, pool, startedAt);
          samples.push(s);
          const rss = Object.values(s.processes).map((p) => (p ? p.rssMb : '-'));
          const heap = Object.values(s.processes).map((p) => (p ? `${p.heapUsedMb}/${p.heapTotalMb}` : '-'));
          log(
            `soak ${Math.round(s.atMs / 1000)} s: rss ${rss.join('/')} MB, heap used/total ${heap.join(' ')} MB, loop p99 max ${Math.max(0, ...Object.values(s.processes).map((p) => p?.loopP99Ms ?? 0))} ms, connections ${s.dbConnections}, backlog ${s.outboxBacklog}, open ${s.openJobs}, unknown ${s.unknownJobs}`,
          );
        } catch (error) {
          log(`soak sample failed: ${(error as Error).message}`);
        }
        const next = startedAt + samples.length * every;
        if (next > end + 1_000) break;
        await sleep(Math.max(0, next - Date.now()));
      }
    },
  });
  const rate = pace.perSecond ?? 0;
  const verdict = judgeSoak(samples, rate);
  const svg = drawSoakChart(samples, {
    title: `Soak, seed ${o.seed}: ${Math.round(o.durationMs / 60_000)} min at ${rate} intents/s${capacity !== null ? ` (half of ${capacity} measured)` : ''}, no faults`,
    command: o.command,
    verdict,
  });
  const chartPath = o.chartPath ?? join(import.meta.dirname, '..', '..', 'docs', 'soak.svg');
  mkdirSync(dirname(chartPath), { recursive: true });
  writeFileSync(chartPath, svg);
  if (o.resultsDir) {
    mkdirSync(o.resultsDir, { recursive: true });
    writeFileSync(
      join(o.resultsDir, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}-seed${o.seed}.json`),
      JSON.stringify({ rate, capacity, verdict, samples }, null, 2),
    );
  }
  log(`chart: ${chartPath}`);
  log(
    `soak ${verdict.passed ? 'PASSED' : 'FAILED'}: RSS growth ${JSON.stringify(verdict.rssGrowth)} %, max backlog ${verdict.maxBacklog}, max open jobs ${verdict.maxOpenJobs} (limit ${verdict.backlogLimit})${verdict.reasons.length ? `; ${verdict.reasons.join('; ')}` : ''}; checker violations ${outcome.report.violations.length}`,
  );
  return {
    samples,
    verdict,
    ratePerSecond: rate,
    capacityPerSecond: capacity,
    violations: outcome.report.violations.length,
  };
}
