import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../chaos/checker/checkHistory.js';
import type { ApiCall, ChaosHistory, DbSnapshot } from '../../chaos/history/types.js';

// A small, correct history: two keys, one double-clicked, both jobs won by one attempt,
// every event delivered once and applied once, a balanced ledger, a rolled-back intake,
// and a pure job whose hedge on the verified backup won while the primary's late answer
// lost the race, both attempts' costs posted once. The primary failed over after every
// answer was given, and the standby held every acknowledged job and transfer.
const LOSER = '0190a000-0000-7000-8000-000000000004';
const HEDGE = '0190a000-0000-7000-8000-000000000005';
function cleanRun(): { history: ChaosHistory; snapshot: DbSnapshot } {
  const call = (over: Partial<ApiCall>): ApiCall => ({
    client: 'c1',
    kind: 'create',
    owner: 'o1',
    key: 'k1',
    target: 'api-1',
    startedAt: 1,
    endedAt: 2,
    status: 202,
    jobId: 'j1',
    ...over,
  });
  const history: ChaosHistory = {
    seed: 7,
    startedAt: 0,
    faultsEndedAt: 50,
    endedAt: 100,
    features: { worker: true, relay: true, consumerHelper: true, inbox: true, ledger: true, inference: true },
    calls: [
      call({}),
      call({ target: 'api-2', replayed: true }),
      call({ status: 0, jobId: undefined }),
      call({ status: 503, code: 'database_unavailable', jobId: undefined }),
      call({ key: 'k2', jobId: 'j2' }),
      call({ kind: 'inbox', source: 'payments', key: 'evt-1', jobId: 'j3' }),
      call({ kind: 'inbox', source: 'payments', key: 'evt-1', jobId: 'j3', replayed: true }),
      call({ kind: 'transfer', key: 't1', status: 201, jobId: undefined }),
    ],
    providerRequests: [
      { provider: 'pay', key: 'j1', attempt: 1, receivedAt: 10, doneAt: 30, outcome: 'charged' },
      { provider: 'pay', key: 'j1', attempt: 2, receivedAt: 40, doneAt: 45, outcome: 'replayed' },
      { provider: 'pay', key: 'j2', attempt: 1, receivedAt: 10, doneAt: 20, outcome: 'charged' },
    ],
    deliveries: [
      {
        eventId: 'e1',
        type: 'onejob.job.created',
        subject: 'j1',
        idempotencyKey: 'k1',
        at: 5,
        redelivered: false,
      },
      {
        eventId: 'e1',
        type: 'onejob.job.created',
        subject: 'j1',
        idempotencyKey: 'k1',
        at: 6,
        redelivered: true,
      },
      { eventId: 'e2', type: 'onejob.job.succeeded', subject: 'j1', at: 50, redelivered: false },
      { eventId: 'e3', type: 'onejob.job.succeeded', subject: 'j4', at: 55, redelivered: false },
    ],
    inferenceRequests: [
      {
        provider: 'llm-backup',
        jobId: 'verification',
        attemptId: 'v1',
        attempt: 1,
        verification: true,
        receivedAt: 1,
        doneAt: 2,
        outcome: 'answered',
        answerId: 'ans-0',
      },
      {
        provider: 'llm-primary',
        jobId: 'j4',
        attemptId: LOSER,
        attempt: 1,
        verification: false,
        receivedAt: 10,
        doneAt: 58,
        outcome: 'answered',
        answerId: 'ans-1',
        late: true,
      },
      {
        provider: 'llm-backup',
        jobId: 'j4',
        attemptId: HEDGE,
        attempt: 2,
        verification: false,
        receivedAt: 31,
        doneAt: 48,
        outcome: 'answered',
        answerId: 'ans-2',
      },
    ],
    contracts: [
      {
        operation: 'summarize',
        providers: ['llm-primary', 'llm-backup', 'llm-unverified'],
        contractHashes: { 'llm-primary': 'h-a', 'llm-backup': 'h-b', 'llm-unverified': 'h-c' },
      },
    ],
    faults: [
      {
        kind: 'primary_failover',
        target: 'postgres-primary',
        startedAt: 3,
        endedAt: 4,
        note: 'promoted the standby on port 2',
      },
    ],
    rolledBack: [{ owner: 'o1', key: 'rollback-1' }],
  };
  const snapshot: DbSnapshot = {
    jobs: [
      {
        id: 'j1',
        ownerId: 'o1',
        idempotencyKey: 'k1',
        operation: 'charge',
        state: 'succeeded',
        completedBy: 'a2',
        version: 3,
      },
      {
        id: 'j2',
        ownerId: 'o1',
        idempotencyKey: 'k2',
        operation: 'charge',
        state: 'unknown',
        completedBy: null,
        version: 1,
      },
      {
        id: 'j3',
        ownerId: 'acme',
        idempotencyKey: 'payments:evt-1',
        operation: 'charge',
        state: 'queued',
        completedBy: null,
        version: 1,
      },
      {
        id: 'j4',
        ownerId: 'o1',
        idempotencyKey: 'k4',
        operation: 'summarize',
        state: 'succeeded',
        completedBy: HEDGE,
        version: 2,
        resultAnswerId: 'ans-2',
      },
    ],
    attempts: [
      { id: 'a1', jobId: 'j1', n: 1, state: 'failed', exclusive: true, startedAt: 9, finishedAt: 35 },
      { id: 'a2', jobId: 'j1', n: 2, state: 'succeeded', exclusive: true, startedAt: 39, finishedAt: 46 },
      { id: 'a3', jobId: 'j2', n: 1, state: 'unknown', exclusive: true, startedAt: 9, finishedAt: null },
      {
        id: LOSER,
        jobId: 'j4',
        n: 1,
        state: 'lost_race',
        exclusive: false,
        startedAt: 10,
        finishedAt: 60,
        provider: 'llm-primary',
        origin: 'worker',
        costMicros: 30,
        costPostedAt: 61,
      },
      {
        id: HEDGE,
        jobId: 'j4',
        n: 2,
        state: 'succeeded',
        exclusive: false,
        startedAt: 30,
        finishedAt: 50,
        provider: 'llm-backup',
        origin: 'hedge',
        costMicros: 40,
        costPostedAt: 51,
      },
    ],
    outbox: [
      { id: 'e1', type: 'onejob.job.created', subject: 'j1', idempotencyKey: 'k1' },
      { id: 'e2', type: 'onejob.job.succeeded', subject: 'j1' },
      { id: 'e3', type: 'onejob.job.succeeded', subject: 'j4', completedBy: HEDGE },
    ],
    effects: [
      { eventId: 'e1', count: 1 },
      { eventId: 'e2', count: 1 },
      { eventId: 'e3', count: 1 },
    ],
    ledger: [
      { ownerId: 'o1', currency: 'USD', debits: 500, credits: 500 },
      { ownerId: 'o1', currency: 'USD_MICROS', debits: 70, credits: 70 },
    ],
    inbox: [{ source: 'payments', eventId: 'evt-1', jobId: 'j3' }],
    costTransfers: [costTransfer(LOSER, 'llm-primary', 30), costTransfer(HEDGE, 'llm-backup', 40)],
    transfers: [
      { ownerId: 'o1', id: 't1' },
      { ownerId: 'o1', id: `attempt-cost:${LOSER}` },
      { ownerId: 'o1', id: `attempt-cost:${HEDGE}` },
    ],
    verifications: [
      {
        provider: 'llm-backup',
        operation: 'summarize',
        contractHash: 'h-b',
        passed: true,
        startedAt: 1,
        finishedAt: 5,
      },
      {
        provider: 'llm-unverified',
        operation: 'summarize',
        contractHash: 'h-c',
        passed: false,
        startedAt: 1,
        finishedAt: 5,
      },
    ],
    budgets: [{ ...BUDGET_ROW }],
    openHolds: [{ holdId: 'attempt-cost:a-unknown', attemptState: 'unknown' }],
  };
  history.budgetSamples = [
    { at: 2, after: 'worker_kill worker-1', rows: [{ ...BUDGET_ROW, heldMicros: 900, spentMicros: 100 }] },
  ];
  return { history, snapshot };
}

const BUDGET_ROW = {
  ownerId: 'o1',
  currency: 'USD',
  period: 'day',
  periodStart: '2026-12-04T00:00:00.000Z',
  limitMicros: 1000,
  spentMicros: 70,
  heldMicros: 0,
};

function costTransfer(attemptId: string, provider: string, amount: number, suffix = '') {
  return {
    ownerId: 'o1',
    id: `attempt-cost:${attemptId}${suffix}`,
    debitAccount: 'usage:USD_MICROS',
    creditAccount: `provider:${provider}:USD_MICROS`,
    amount,
    currency: 'USD_MICROS',
    reference: 'job:j4',
  };
}

function violationsOf(run: { history: ChaosHistory; snapshot: DbSnapshot }) {
  return checkHistory(run.history, run.snapshot).violations.map((v) => v.check);
}

describe('chaos checker', () => {
  it('finds no violation in a correct history and lists the unknown job', () => {
    const run = cleanRun();
    const report = checkHistory(run.history, run.snapshot);
    expect(report.violations).toEqual([]);
    const unknown = report.results.find((r) => r.check === 'unknown_resolved_or_listed');
    expect(unknown?.notes?.unknownJobs).toEqual(['j2']);
    expect(report.results.every((r) => r.skipped === undefined)).toBe(true);
  });

  it('catches two jobs for one owner and key', () => {
    const run = cleanRun();
    run.snapshot.jobs.push({ ...run.snapshot.jobs[1]!, id: 'j2b' });
    expect(violationsOf(run)).toContain('one_job_per_key');
  });

  it('catches a client told two job ids for one key', () => {
    const run = cleanRun();
    run.history.calls.push({ ...run.history.calls[0]!, jobId: 'j9', target: 'api-2' });
    expect(violationsOf(run)).toContain('one_job_id_per_client_key');
  });

  it('catches an acknowledged job that the database lost', () => {
    const run = cleanRun();
    run.history.faults = [];
    run.snapshot.jobs = run.snapshot.jobs.filter((j) => j.id !== 'j2');
    run.snapshot.attempts = run.snapshot.attempts.filter((a) => a.jobId !== 'j2');
    expect(violationsOf(run)).toEqual(['one_job_id_per_client_key']);
  });

  it('catches a job acknowledged before a failover that the new primary does not hold', () => {
    const run = cleanRun();
    run.snapshot.jobs = run.snapshot.jobs.filter((j) => j.id !== 'j2');
    run.snapshot.attempts = run.snapshot.attempts.filter((a) => a.jobId !== 'j2');
    const report = checkHistory(run.history, run.snapshot);
    expect(report.violations.map((v) => v.check)).toEqual([
      'one_job_id_per_client_key',
      'acknowledged_jobs_survive_failover',
    ]);
    expect(report.violations[1]!.detail).toBe(
      'job j2 (create k2 of owner o1) was acknowledged by api-1 at +2 ms, before the end of the failover of +3 ms to +4 ms, and no longer exists',
    );
  });

  it('catches a second job for a key acknowledged before a failover', () => {
    const run = cleanRun();
    run.snapshot.jobs.push({ ...run.snapshot.jobs[0]!, id: 'j1b' });
    expect(violationsOf(run)).toContain('acknowledged_jobs_survive_failover');
    run.history.faults = [];
    expect(violationsOf(run)).not.toContain('acknowledged_jobs_survive_failover');
  });

  it('catches a transfer acknowledged before a failover that the ledger no longer holds', () => {
    const run = cleanRun();
    run.snapshot.transfers = run.snapshot.transfers!.filter((t) => t.id !== 't1');
    expect(violationsOf(run)).toEqual(['acknowledged_jobs_survive_failover']);
  });

  it('judges only answers given before the last failover ended, and only failovers that promoted', () => {
    const run = cleanRun();
    run.snapshot.jobs = run.snapshot.jobs.filter((j) => j.id !== 'j2');
    run.snapshot.attempts = run.snapshot.attempts.filter((a) => a.jobId !== 'j2');
    run.history.faults[0] = { ...run.history.faults[0]!, startedAt: 1, endedAt: 1 };
    expect(violationsOf(run)).toEqual(['one_job_id_per_client_key']);
    run.history.faults[0] = {
      ...run.history.faults[0]!,
      endedAt: 9,
      note: 'harness error: pg_ctl promote failed',
    };
    const report = checkHistory(run.history, run.snapshot);
    expect(report.results.find((r) => r.check === 'acknowledged_jobs_survive_failover')?.skipped).toBe(
      'no primary failover happened in this run',
    );
  });

  it('catches two webhook deliveries of one event answered with different jobs', () => {
    const run = cleanRun();
    run.history.calls.push({ ...run.history.calls[5]!, jobId: 'j4' });
    expect(violationsOf(run)).toContain('acknowledged_jobs_survive_failover');
    run.history.faults = [];
    expect(violationsOf(run)).toEqual(['inbox_one_job_per_event']);
  });

  it('catches two winners of one job', () => {
    const run = cleanRun();
    run.snapshot.attempts[0]!.state = 'succeeded';
    expect(violationsOf(run)).toContain('one_winner_per_job');
  });

  it('catches completed_by naming an attempt that did not win', () => {
    const run = cleanRun();
    run.snapshot.jobs[0]!.completedBy = 'a1';
    expect(violationsOf(run)).toEqual(['one_winner_per_job']);
  });

  it('catches an exclusive attempt started while the previous one was unknown', () => {
    const run = cleanRun();
    run.snapshot.attempts.push({
      id: 'a4',
      jobId: 'j2',
      n: 2,
      state: 'failed',
      exclusive: true,
      startedAt: 20,
      finishedAt: 25,
    });
    expect(violationsOf(run)).toEqual(['exclusive_one_live_attempt']);
  });

  it('catches overlapping exclusive attempts in the past from their start and finish times', () => {
    const run = cleanRun();
    run.snapshot.attempts[1]!.startedAt = 30; // attempt 1 only finished at 35
    expect(violationsOf(run)).toEqual(['exclusive_one_live_attempt']);
  });

  it('catches the provider working on two attempts of one exclusive job at once', () => {
    const run = cleanRun();
    run.history.providerRequests[1]!.receivedAt = 25; // attempt 1 was still running until 30
    expect(violationsOf(run)).toEqual(['exclusive_one_live_attempt']);
  });

  it('allows overlap with an attempt that was abandoned', () => {
    const run = cleanRun();
    run.history.providerRequests[1]!.receivedAt = 25;
    run.snapshot.attempts[0]!.state = 'abandoned';
    expect(violationsOf(run)).toEqual([]);
  });

  it('allows hedged attempts of a pure job to overlap', () => {
    const run = cleanRun();
    for (const a of run.snapshot.attempts) if (a.jobId === 'j1') a.exclusive = false;
    run.snapshot.attempts[1]!.startedAt = 20;
    run.history.providerRequests[1]!.receivedAt = 25;
    expect(violationsOf(run)).toEqual([]);
  });

  it('catches a committed event that never reached the consumer', () => {
    const run = cleanRun();
    run.snapshot.outbox.push({ id: 'e9', type: 'onejob.job.created', subject: 'j2' });
    expect(violationsOf(run)).toEqual(['events_delivered_at_least_once']);
  });

  it('catches an event applied twice', () => {
    const run = cleanRun();
    run.snapshot.effects![0]!.count = 2;
    expect(violationsOf(run)).toEqual(['events_applied_exactly_once']);
  });

  it('catches a delivered event that was never applied', () => {
    const run = cleanRun();
    run.snapshot.effects = run.snapshot.effects!.slice(1);
    expect(violationsOf(run)).toEqual(['events_applied_exactly_once']);
  });

  it('a delivery the consumer could not apply and did not ack is not yet consumed', () => {
    const run = cleanRun();
    for (const d of run.history.deliveries) if (d.eventId === 'e2') d.acked = false;
    run.snapshot.effects = run.snapshot.effects!.filter((e) => e.eventId !== 'e2');
    expect(violationsOf(run)).toEqual(['events_delivered_at_least_once']);
    run.history.deliveries.push({
      eventId: 'e2',
      type: 'onejob.job.succeeded',
      subject: 'j1',
      at: 60,
      redelivered: true,
      acked: true,
    });
    run.snapshot.effects!.push({ eventId: 'e2', count: 1 });
    expect(violationsOf(run)).toEqual([]);
  });

  it('catches an event delivered for a transaction that rolled back', () => {
    const run = cleanRun();
    run.history.deliveries.push({
      eventId: 'e9',
      type: 'onejob.job.created',
      subject: 'jx',
      idempotencyKey: 'rollback-1',
      at: 7,
      redelivered: false,
    });
    run.snapshot.effects!.push({ eventId: 'e9', count: 1 });
    expect(violationsOf(run)).toContain('no_event_for_rolled_back_transaction');
  });

  it('catches a job that exists for a rolled-back key', () => {
    const run = cleanRun();
    run.snapshot.jobs.push({
      id: 'j8',
      ownerId: 'o1',
      idempotencyKey: 'rollback-1',
      operation: 'charge',
      state: 'queued',
      completedBy: null,
      version: 1,
    });
    expect(violationsOf(run)).toEqual(['no_event_for_rolled_back_transaction']);
  });

  it('catches an unbalanced ledger', () => {
    const run = cleanRun();
    run.snapshot.ledger![0]!.credits = 499;
    expect(violationsOf(run)).toEqual(['ledger_sums_to_zero']);
  });

  it('catches a 500 answer but accepts 503 and dead processes', () => {
    const run = cleanRun();
    expect(violationsOf(run)).toEqual([]);
    run.history.calls.push({
      ...run.history.calls[0]!,
      status: 500,
      code: 'internal_error',
      jobId: undefined,
    });
    expect(violationsOf(run)).toEqual(['no_500_answers']);
  });

  it('catches an unknown job that no attempt can resolve', () => {
    const run = cleanRun();
    run.snapshot.attempts[2]!.state = 'failed';
    run.snapshot.attempts[2]!.finishedAt = 20;
    expect(violationsOf(run)).toEqual(['unknown_resolved_or_listed']);
  });

  it('catches a hedge that completed a job its sibling had already won (two succeeded events)', () => {
    const run = cleanRun();
    run.snapshot.outbox.push({ id: 'e4', type: 'onejob.job.succeeded', subject: 'j4', completedBy: LOSER });
    run.history.deliveries.push({
      eventId: 'e4',
      type: 'onejob.job.succeeded',
      subject: 'j4',
      at: 70,
      redelivered: false,
    });
    run.snapshot.effects!.push({ eventId: 'e4', count: 1 });
    expect(violationsOf(run)).toEqual([
      'one_winner_per_job_hedges_included',
      'one_winner_per_job_hedges_included',
      'lost_race_result_never_reaches_job',
    ]);
  });

  it('catches two succeeded attempts of a hedged job', () => {
    const run = cleanRun();
    run.snapshot.attempts.find((a) => a.id === LOSER)!.state = 'succeeded';
    expect(violationsOf(run)).toContain('one_winner_per_job_hedges_included');
  });

  it('catches a job holding a result that was answered to the attempt that lost the race', () => {
    const run = cleanRun();
    run.snapshot.jobs.find((j) => j.id === 'j4')!.resultAnswerId = 'ans-1';
    expect(violationsOf(run)).toEqual([
      'one_winner_per_job_hedges_included',
      'lost_race_result_never_reaches_job',
    ]);
  });

  it('catches a result from a fallback whose verification finished only after the attempt started', () => {
    const run = cleanRun();
    run.snapshot.verifications![0]!.finishedAt = 31;
    expect(violationsOf(run)).toEqual(['result_only_from_verified_provider']);
  });

  it('catches a result from a fallback that failed verification, and one verified under another contract', () => {
    const run = cleanRun();
    run.snapshot.attempts.find((a) => a.id === HEDGE)!.provider = 'llm-unverified';
    run.snapshot.costTransfers![1]!.creditAccount = 'provider:llm-unverified:USD_MICROS';
    expect(violationsOf(run)).toEqual(['result_only_from_verified_provider']);
    const other = cleanRun();
    other.snapshot.verifications![0]!.contractHash = 'h-old';
    expect(violationsOf(other)).toEqual(['result_only_from_verified_provider']);
  });

  it("catches a race loser's cost posted twice under two transfer ids", () => {
    const run = cleanRun();
    run.snapshot.costTransfers!.push(costTransfer(LOSER, 'llm-primary', 30, ':again'));
    run.snapshot.ledger![1] = { ownerId: 'o1', currency: 'USD_MICROS', debits: 100, credits: 100 };
    expect(violationsOf(run)).toEqual(['attempt_cost_posted_once', 'ledger_sums_to_zero_with_costs']);
  });

  it("catches a finished attempt's cost never posted, and a posted amount that is not the cost", () => {
    const run = cleanRun();
    run.snapshot.costTransfers = [costTransfer(HEDGE, 'llm-backup', 41)];
    expect(violationsOf(run)).toContain('attempt_cost_posted_once');
    const details = checkHistory(run.history, run.snapshot)
      .violations.filter((v) => v.check === 'attempt_cost_posted_once')
      .map((v) => v.detail);
    expect(details.some((d) => d.includes('posted 0 times'))).toBe(true);
    expect(details.some((d) => d.includes('posts 41'))).toBe(true);
  });

  it('catches cost accounts whose debits and credits differ, or hold less than the attempts cost', () => {
    const run = cleanRun();
    run.snapshot.ledger![1] = { ownerId: 'o1', currency: 'USD_MICROS', debits: 70, credits: 60 };
    expect(violationsOf(run)).toEqual(['ledger_sums_to_zero', 'ledger_sums_to_zero_with_costs']);
    const short = cleanRun();
    short.snapshot.ledger![1] = { ownerId: 'o1', currency: 'USD_MICROS', debits: 40, credits: 40 };
    expect(violationsOf(short)).toEqual(['ledger_sums_to_zero_with_costs']);
  });

  it('skips, and says so, the checks of features a build lacks', () => {
    const run = cleanRun();
    run.history.features = {
      worker: false,
      relay: false,
      consumerHelper: false,
      inbox: false,
      ledger: false,
    };
    run.snapshot.effects = null;
    run.snapshot.ledger = null;
    run.snapshot.inbox = null;
    run.history.faults = [];
    const report = checkHistory(run.history, run.snapshot);
    const skippedChecks = report.results.filter((r) => r.skipped).map((r) => r.check);
    expect(skippedChecks).toEqual([
      'inbox_one_job_per_event',
      'acknowledged_jobs_survive_failover',
      'one_winner_per_job',
      'one_winner_per_job_hedges_included',
      'lost_race_result_never_reaches_job',
      'result_only_from_verified_provider',
      'exclusive_one_live_attempt',
      'events_delivered_at_least_once',
      'events_applied_exactly_once',
      'ledger_sums_to_zero',
      'attempt_cost_posted_once',
      'ledger_sums_to_zero_with_costs',
      'unknown_resolved_or_listed',
    ]);
    expect(report.violations).toEqual([]);
  });

  it('catches spending past a budget after a fault, even when the end looks fine', () => {
    const run = cleanRun();
    run.history.budgetSamples![0]!.rows[0]!.heldMicros = 901;
    expect(violationsOf(run)).toEqual(['spend_within_budget']);
  });

  it('catches spending past a budget at the end', () => {
    const run = cleanRun();
    run.snapshot.budgets![0]!.spentMicros = 1001;
    expect(violationsOf(run)).toEqual(['spend_within_budget']);
  });

  it('catches a hold left open by a finished attempt, and lets an unknown attempt keep its own', () => {
    const run = cleanRun();
    run.snapshot.openHolds!.push({ holdId: 'attempt-cost:a-done', attemptState: 'succeeded' });
    expect(violationsOf(run)).toEqual(['holds_end_posted_or_voided']);
  });
});
