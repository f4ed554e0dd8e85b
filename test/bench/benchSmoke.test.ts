// A short run of the whole benchmark harness: it proves every scenario runs and reports
// numbers. It never asserts that anything is fast (that is what `npm run bench` is for).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BENCH_OPTIONS } from '../../bench/benchOptions.js';
import type { BenchRun } from '../../bench/benchResult.js';
import { runBench, SCENARIO_IDS } from '../../bench/runBench.js';
import { ADMIN_URL } from '../helpers/testDatabase.js';

const dir = await mkdtemp(join(os.tmpdir(), 'onejob-bench-smoke-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('bench harness', () => {
  it('runs every scenario and reports throughput, latency, server RSS and target verdicts', async () => {
    const out = join(dir, 'result.json');
    const { run, table } = await runBench({
      ...DEFAULT_BENCH_OPTIONS,
      adminUrl: ADMIN_URL,
      warmupMs: 300,
      durationMs: 1_000,
      concurrency: 4,
      latencyConcurrency: 2,
      stormSize: 4,
      poolSize: 4,
      claimConcurrency: 2,
      workerConcurrency: 4,
      // Enough that the relay (e), the fastest drain, is still publishing when its window opens.
      queueJobs: 12_000,
      costJobs: 500,
      fairBacklog: 3_000,
      steadyRate: 50,
      logLevel: 'warn',
      // The source under test, not whatever dist/ was last built.
      server: 'tsx',
      progress: false,
      out,
    });

    expect(run.scenarios.map((s) => s.id)).toEqual(SCENARIO_IDS);
    for (const s of run.scenarios) {
      if (s.status === 'skipped') {
        // Only the scenarios that wait for a role or for PgBouncer may be skipped, and they say why.
        expect([
          'd',
          'd-cold',
          'd-owners',
          'fair',
          'd-cost',
          'l-e2e',
          'e',
          'i-direct',
          'i-pgbouncer',
        ]).toContain(s.id);
        expect(s.note).toMatch(s.id.startsWith('i-') ? /pgbouncer is not installed/ : /not available/);
        continue;
      }
      expect({ id: s.id, status: s.status, note: s.note }).toEqual({ id: s.id, status: 'ok', note: s.note });
      expect(s.result!.ops, s.id).toBeGreaterThan(0);
      expect(Number.isFinite(s.result!.throughput), s.id).toBe(true);
    }
    // A drain's window opens at its first completed job; the wait before it is reported.
    for (const s of run.scenarios.filter((x) => ['d', 'd-cold'].includes(x.id) && x.status === 'ok')) {
      expect(s.result!.firstCompletionMs, s.id).toBeGreaterThan(0);
    }
    for (const id of ['a64', 'a16', 'b', 'c']) {
      const s = run.scenarios.find((x) => x.id === id)!;
      expect(s.serverRssMb, id).toBeGreaterThan(0);
      expect(Number.isFinite(s.result!.p99Ms), id).toBe(true);
    }
    // The storm found exactly one job per key: the harness checks correctness as it measures.
    expect(run.scenarios.find((x) => x.id === 'c')!.extra).toMatchObject({ stormViolations: 0 });
    // The server's own split of a create's time, read from its metrics.
    for (const id of ['a64', 'a16']) {
      const batches = run.scenarios.find((x) => x.id === id)!.extra!.batches as { batches: number };
      expect(batches.batches, id).toBeGreaterThan(0);
      expect(batches, id).toMatchObject({ dbP99Ms: expect.any(Number), waitP99Ms: expect.any(Number) });
    }
    // Rows and WAL per job, counted for onejob and graphile-worker alike.
    for (const id of ['d-cost', 'g-gw-cost']) {
      const s = run.scenarios.find((x) => x.id === id)!;
      if (s.status === 'skipped') continue;
      const extra = s.extra!;
      expect(extra.rowsPerJob, id).toBeGreaterThan(0);
      expect(extra.walBytesPerJob, id).toBeGreaterThan(0);
    }
    expect(run.targets.length).toBeGreaterThanOrEqual(8);
    expect(run.targets.find((t) => t.id === 'create-vs-raw')!.pass).toBeTypeOf('boolean');

    const written = JSON.parse(await readFile(out, 'utf8')) as BenchRun;
    expect(written.scenarios).toHaveLength(SCENARIO_IDS.length);
    expect(written.machine.nproc).toBeGreaterThan(0);
    expect(table).toContain('| a64');
    // About 85 s alone on two cores; beside the rest of the suite's files, several times that.
  }, 480_000);
});
