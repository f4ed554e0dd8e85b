import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../chaos/checker/checkHistory.js';
import type { ApiCall, ChaosHistory, DbSnapshot } from '../../chaos/history/types.js';

// A small, correct history: two keys, one double-clicked, both jobs won by one attempt,
// every event delivered once and applied once, a balanced ledger, a rolled-back intake.
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
    features: { worker: true, relay: true, consumerHelper: true, inbox: true, ledger: true },
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
    ],
    faults: [],
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
    ],
    attempts: [
      { id: 'a1', jobId: 'j1', n: 1, state: 'failed', exclusive: true, startedAt: 9, finishedAt: 35 },
      { id: 'a2', jobId: 'j1', n: 2, state: 'succeeded', exclusive: true, startedAt: 39, finishedAt: 46 },
      { id: 'a3', jobId: 'j2', n: 1, state: 'unknown', exclusive: true, startedAt: 9, finishedAt: null },
    ],
    outbox: [
      { id: 'e1', type: 'onejob.job.created', subject: 'j1', idempotencyKey: 'k1' },
      { id: 'e2', type: 'onejob.job.succeeded', subject: 'j1' },
    ],
    effects: [
      { eventId: 'e1', count: 1 },
      { eventId: 'e2', count: 1 },
    ],
    ledger: [{ ownerId: 'o1', currency: 'USD', debits: 500, credits: 500 }],
    inbox: [{ source: 'payments', eventId: 'evt-1', jobId: 'j3' }],
  };
  return { history, snapshot };
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
    run.snapshot.jobs = run.snapshot.jobs.filter((j) => j.id !== 'j2');
    run.snapshot.attempts = run.snapshot.attempts.filter((a) => a.jobId !== 'j2');
    expect(violationsOf(run)).toEqual(['one_job_id_per_client_key']);
  });

  it('catches two webhook deliveries of one event answered with different jobs', () => {
    const run = cleanRun();
    run.history.calls.push({ ...run.history.calls[5]!, jobId: 'j4' });
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
    run.snapshot.outbox.push({ id: 'e3', type: 'onejob.job.created', subject: 'j2' });
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
    const report = checkHistory(run.history, run.snapshot);
    const skippedChecks = report.results.filter((r) => r.skipped).map((r) => r.check);
    expect(skippedChecks).toEqual([
      'inbox_one_job_per_event',
      'one_winner_per_job',
      'exclusive_one_live_attempt',
      'events_delivered_at_least_once',
      'events_applied_exactly_once',
      'ledger_sums_to_zero',
      'unknown_resolved_or_listed',
    ]);
    expect(report.violations).toEqual([]);
  });
});
