// A short chaos run inside the test suite: a small onejob cluster (two API processes, one
// worker, one relay, one library-mode process running a code operation), an embedded
// PostgreSQL, a three-node NATS JetStream cluster, clients that double-click, retry and
// redeliver, exclusive payment jobs and pure inference jobs that hedge to a verified
// fallback, and a fixed-seed fault schedule. Every guarantee the build has must hold;
// checks of features this build lacks are skipped and named.
import { describe, expect, it } from 'vitest';
import { runChaos } from '../../chaos/runChaos.js';

const SEED = 20_260_301;

describe('short chaos run', () => {
  it('crashes, restarts, stalls, hedges and late answers with a fixed seed break no guarantee', async () => {
    const lines: string[] = [];
    const started = Date.now();
    const outcome = await runChaos({
      seed: SEED,
      faultMs: 40_000,
      calmMs: 8_000,
      settleMs: 30_000,
      processes: { api: 2, worker: 1, relay: 1 },
      library: 1,
      database: 'embedded',
      // A load one worker and one relay can absorb on a small, shared machine, so that the
      // backlog drains within the settle phase and every event can be checked.
      clients: 3,
      thinkMs: 400,
      log: (line) => lines.push(line),
    });
    const skippedChecks = outcome.summary.checks.filter((c) => c.skipped);
    for (const c of skippedChecks) console.warn(`chaos check skipped: ${c.check}: ${c.skipped}`);
    const report = lines.join('\n');
    console.info(
      `${report.slice(report.indexOf('chaos run, seed'))}\nwall time ${Math.round((Date.now() - started) / 1000)} s`,
    );
    expect(outcome.report.violations, report).toEqual([]);
    expect(outcome.history.faults.length, report).toBeGreaterThanOrEqual(2);
    expect(outcome.summary.operations.create ?? 0, report).toBeGreaterThan(50);
    // The pure-operation load ran: inference jobs, code jobs of the library process, and
    // attempts whose cost went to the ledger.
    expect(outcome.summary.operations['jobs:summarize'] ?? 0, report).toBeGreaterThan(0);
    expect(outcome.summary.operations['jobs:tally'] ?? 0, report).toBeGreaterThan(0);
    expect(outcome.summary.operations.costedAttempts ?? 0, report).toBeGreaterThan(0);
    // The core identity checks never depend on optional features.
    for (const check of [
      'one_job_per_key',
      'one_job_id_per_client_key',
      'no_500_answers',
      'one_winner_per_job_hedges_included',
      'attempt_cost_posted_once',
      'result_only_from_verified_provider',
    ])
      expect(outcome.summary.checks.find((c) => c.check === check)?.skipped, check).toBeUndefined();
  }, 360_000);
});
