// One job and its attempts as a pure value, stepped by the commands the engine runs
// (start, claim, run, complete, fail, timeout, lease expiry, stream claim, abandon,
// cancel). It is what the database should hold after each of them: the property test
// (stateMachine.property.test.ts) runs the same commands through the production SQL and
// compares every answer and every row with this model.
import {
  type AttemptState,
  canMoveAttempt,
  canMoveJob,
  type JobState,
  LIVE_ATTEMPT_STATES,
  refuseStart,
  type StartRefusal,
  settleAfterAttempt,
  TERMINAL_JOB_STATES,
} from '../../src/jobs/stateMachine.js';

export interface MachineAttempt {
  n: number;
  state: AttemptState;
  jobVersion: number;
}

export interface Machine {
  exclusive: boolean;
  maxAttempts: number;
  job: { state: JobState; version: number; completedBy: number | null; attemptCount: number };
  attempts: MachineAttempt[];
}

export type Command =
  | { kind: 'start' }
  | { kind: 'claim' }
  | { kind: 'run'; n: number }
  | { kind: 'complete'; n: number }
  | { kind: 'fail'; n: number }
  | { kind: 'timeout'; n: number }
  | { kind: 'leaseExpired'; n: number }
  | { kind: 'claimStream'; n: number }
  | { kind: 'abandon'; n: number }
  | { kind: 'cancel' };

export type StepResult =
  | {
      ok: true;
      outcome:
        | 'started'
        | 'claimed'
        | 'nothing_claimed'
        | 'running'
        | 'stream_claimed'
        | 'won'
        | 'lost_race'
        | 'discarded'
        | 'failed'
        | 'unknown'
        | 'abandoned'
        | 'cancelled'
        | 'noop';
    }
  | {
      ok: false;
      refusal: StartRefusal | 'attempt_not_abandonable' | 'not_live' | 'no_such_attempt' | 'stream_taken';
    };

export function newMachine(exclusive: boolean, maxAttempts: number): Machine {
  return {
    exclusive,
    maxAttempts,
    job: { state: 'queued', version: 1, completedBy: null, attemptCount: 0 },
    attempts: [],
  };
}

const isLive = (a: MachineAttempt) => LIVE_ATTEMPT_STATES.includes(a.state);

/** Completion by compare-and-swap: the attempt wins only if nothing changed the job since it started. */
export function winsCompareAndSwap(
  job: { version: number; completedBy: unknown; state: JobState },
  attempt: { jobVersion: number; state: AttemptState },
): boolean {
  return (
    job.completedBy === null &&
    job.version === attempt.jobVersion &&
    !TERMINAL_JOB_STATES.includes(job.state) &&
    LIVE_ATTEMPT_STATES.includes(attempt.state)
  );
}

function moveAttempt(a: MachineAttempt, to: AttemptState): void {
  if (!canMoveAttempt(a.state, to)) throw new Error(`illegal attempt transition ${a.state} -> ${to}`);
  a.state = to;
}

function moveJob(m: Machine, to: JobState): void {
  if (m.job.state !== to && !canMoveJob(m.job.state, to))
    throw new Error(`illegal job transition ${m.job.state} -> ${to}`);
  m.job.state = to;
}

function settle(
  m: Machine,
  a: MachineAttempt,
  ended: 'failed' | 'unknown' | 'abandoned',
  bumped: boolean,
): void {
  if (m.job.completedBy !== null || m.job.state === 'cancelled' || m.job.state === 'failed') return;
  const others = m.attempts.filter((o) => o !== a);
  const next = settleAfterAttempt({
    exclusive: m.exclusive,
    othersRunning: others.filter((o) => o.state === 'starting' || o.state === 'running').length,
    othersUnknown: others.filter((o) => o.state === 'unknown').length,
    ended,
    attemptCount: m.job.attemptCount,
    maxAttempts: m.maxAttempts,
  });
  moveJob(m, next.state);
  if (next.state === 'failed' && !bumped) m.job.version += 1;
}

/** Applies one command to a copy of `m`. Never mutates its argument. */
export function step(input: Machine, cmd: Command): { machine: Machine; result: StepResult } {
  const m: Machine = structuredClone(input);
  const find = (n: number) => m.attempts.find((a) => a.n === n);
  const done = (result: StepResult) => ({ machine: m, result });

  const refusal = () =>
    refuseStart({
      jobState: m.job.state,
      exclusive: m.exclusive,
      live: m.attempts.filter(isLive).map((a) => a.state),
      attemptCount: m.job.attemptCount,
      maxAttempts: m.maxAttempts,
    });
  const begin = (state: 'starting' | 'running') => {
    m.job.attemptCount += 1;
    m.attempts.push({ n: m.job.attemptCount, state, jobVersion: m.job.version });
    moveJob(m, 'running');
  };

  switch (cmd.kind) {
    case 'start': {
      const refused = refusal();
      if (refused) return done({ ok: false, refusal: refused });
      begin('starting');
      return done({ ok: true, outcome: 'started' });
    }
    case 'claim': {
      // The worker's claim takes only a queued job (its backoff over) that may start an attempt, already running.
      if (m.job.state !== 'queued' || refusal()) return done({ ok: true, outcome: 'nothing_claimed' });
      begin('running');
      return done({ ok: true, outcome: 'claimed' });
    }
    case 'run': {
      const a = find(cmd.n);
      if (!a) return done({ ok: false, refusal: 'no_such_attempt' });
      if (a.state !== 'starting') return done({ ok: false, refusal: 'not_live' });
      // A sibling won before this attempt called its provider: the call is never made.
      if (m.job.completedBy !== null || TERMINAL_JOB_STATES.includes(m.job.state)) {
        moveAttempt(a, 'failed');
        return done({ ok: true, outcome: 'failed' });
      }
      moveAttempt(a, 'running');
      return done({ ok: true, outcome: 'running' });
    }
    case 'claimStream': {
      const a = find(cmd.n);
      if (!a) return done({ ok: false, refusal: 'no_such_attempt' });
      // The abandon's mechanism: the version moves on and only this attempt carries it.
      if (
        (a.state !== 'running' && a.state !== 'unknown') ||
        m.job.completedBy !== null ||
        m.job.version !== a.jobVersion
      )
        return done({ ok: false, refusal: 'stream_taken' });
      m.job.version += 1;
      a.jobVersion = m.job.version;
      return done({ ok: true, outcome: 'stream_claimed' });
    }
    case 'complete': {
      const a = find(cmd.n);
      if (!a) return done({ ok: false, refusal: 'no_such_attempt' });
      // A starting attempt has not called its provider; it cannot have a result yet.
      if (a.state === 'starting') return done({ ok: false, refusal: 'not_live' });
      if (!isLive(a)) return done({ ok: true, outcome: 'discarded' });
      if (winsCompareAndSwap(m.job, a)) {
        moveAttempt(a, 'succeeded');
        moveJob(m, 'succeeded');
        m.job.version += 1;
        m.job.completedBy = a.n;
        return done({ ok: true, outcome: 'won' });
      }
      moveAttempt(a, 'lost_race');
      return done({ ok: true, outcome: 'lost_race' });
    }
    case 'fail':
    case 'timeout':
    case 'leaseExpired': {
      const a = find(cmd.n);
      if (!a) return done({ ok: false, refusal: 'no_such_attempt' });
      if (!isLive(a)) return done({ ok: false, refusal: 'not_live' });
      let to: 'failed' | 'unknown';
      if (cmd.kind === 'fail') to = 'failed';
      else if (a.state === 'starting') {
        // Timeouts only run once the call left; a lease lost while starting means it never left.
        if (cmd.kind === 'timeout') return done({ ok: false, refusal: 'not_live' });
        to = 'failed';
      } else if (a.state === 'unknown') return done({ ok: true, outcome: 'noop' });
      else to = 'unknown';
      moveAttempt(a, to);
      settle(m, a, to, false);
      return done({ ok: true, outcome: to });
    }
    case 'abandon': {
      const a = find(cmd.n);
      if (!a) return done({ ok: false, refusal: 'no_such_attempt' });
      if (
        !isLive(a) ||
        m.job.completedBy !== null ||
        m.job.state === 'cancelled' ||
        m.job.state === 'failed'
      ) {
        return done({ ok: false, refusal: 'attempt_not_abandonable' });
      }
      moveAttempt(a, 'abandoned');
      m.job.version += 1;
      // Only the abandoned attempt is fenced out: other live attempts carry the new version.
      for (const o of m.attempts) if (o !== a && isLive(o)) o.jobVersion = m.job.version;
      settle(m, a, 'abandoned', true);
      return done({ ok: true, outcome: 'abandoned' });
    }
    case 'cancel': {
      if (m.job.state === 'cancelled') return done({ ok: true, outcome: 'noop' });
      if (m.job.state === 'succeeded' || m.job.state === 'failed')
        return done({ ok: false, refusal: 'job_completed' });
      moveJob(m, 'cancelled');
      m.job.version += 1;
      for (const a of m.attempts) if (isLive(a)) moveAttempt(a, 'abandoned');
      return done({ ok: true, outcome: 'cancelled' });
    }
  }
}
