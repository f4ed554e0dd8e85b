// The attempt state machine under random interleavings, run through the production SQL:
// each command is the function the engine calls (startAttempt, the worker's claim,
// markRunning, completeAttempt, failAttempt, markUnknown, the lease sweep, claimStream,
// abandonAttempt, cancelJob) against a real database, and after each one the answer, the
// job row and every attempt row must equal what the model (jobMachine.ts) says.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimStream } from '../../src/compat/claimStream.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { createOnejob, type Onejob } from '../../src/createOnejob.js';
import { isOnejobError } from '../../src/errors/OnejobError.js';
import { abandonAttempt } from '../../src/jobs/abandonAttempt.js';
import { cancelJob } from '../../src/jobs/cancelJob.js';
import { completeAttempt } from '../../src/jobs/completeAttempt.js';
import { failAttempt } from '../../src/jobs/failAttempt.js';
import { markUnknown } from '../../src/jobs/markUnknown.js';
import { startAttempt } from '../../src/jobs/startAttempt.js';
import {
  ATTEMPT_TRANSITIONS,
  type AttemptState,
  LIVE_ATTEMPT_STATES,
  TERMINAL_JOB_STATES,
} from '../../src/jobs/stateMachine.js';
import { createLogger } from '../../src/observability/createLogger.js';
import { claimQueuedJobs } from '../../src/worker/claimJobs.js';
import { expireLease } from '../../src/worker/expireLease.js';
import { findExpiredLeases, markRunning } from '../../src/worker/leases.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { type Command, type Machine, newMachine, step } from './jobMachine.js';

const MAX_ATTEMPTS = [1, 2, 3, 4] as const;
const WORKER = 'property-worker';
// Long enough never to lapse during a run: only the lease-expiry command ends a lease.
const LEASE_MS = 600_000;
const OWNER = 'owner-property';

/** One operation per effect and maxAttempts; retries come back at once, so the claim can take them. */
function operationName(exclusive: boolean, maxAttempts: number): string {
  return `${exclusive ? 'exclusive' : 'pure'}_${maxAttempts}`;
}

const config: OnejobConfig = {
  providers: { pay: { kind: 'http', url: 'http://127.0.0.1:9/never-called' } },
  operations: Object.fromEntries(
    [true, false].flatMap((exclusive) =>
      MAX_ATTEMPTS.map((maxAttempts) => [
        operationName(exclusive, maxAttempts),
        {
          kind: 'http' as const,
          providers: ['pay'],
          effect: exclusive ? ('exclusive' as const) : ('pure' as const),
          maxAttempts,
          attemptTimeoutMs: 60_000,
          retry: { baseDelayMs: 0, maxDelayMs: 0 },
        },
      ]),
    ),
  ),
  outbox: { publishers: [{ kind: 'log' }] },
};

let db: TestDatabase;
let onejob: Onejob;
beforeAll(async () => {
  db = await createTestDatabase();
  onejob = createOnejob({ connectionString: db.url, config, logger: createLogger('silent') });
});
afterAll(async () => {
  await onejob?.close();
  await db?.drop();
});

/** The job under test and its attempts' ids by number. */
interface Real {
  jobId: string;
  attempts: Map<number, string>;
}

interface Rows {
  job: { state: string; version: number; completedBy: number | null; attemptCount: number };
  attempts: { n: number; state: string; jobVersion: number }[];
}

async function readRows(real: Real): Promise<Rows> {
  const { rows: jobs } = await onejob.pool.query<{
    state: string;
    version: number;
    completed_by: number | null;
    attempt_count: number;
  }>(
    `SELECT j.state, j.version, j.attempt_count, (SELECT a.n FROM onejob.attempts a WHERE a.id = j.completed_by) AS completed_by
     FROM onejob.jobs j WHERE j.id = $1`,
    [real.jobId],
  );
  const { rows: attempts } = await onejob.pool.query<{ n: number; state: string; job_version: number }>(
    'SELECT n, state, job_version FROM onejob.attempts WHERE job_id = $1 ORDER BY n',
    [real.jobId],
  );
  const job = jobs[0]!;
  return {
    job: {
      state: job.state,
      version: job.version,
      completedBy: job.completed_by,
      attemptCount: job.attempt_count,
    },
    attempts: attempts.map((a) => ({ n: a.n, state: a.state, jobVersion: a.job_version })),
  };
}

const modelRows = (m: Machine): Rows => ({
  job: { ...m.job },
  attempts: m.attempts.map((a) => ({ n: a.n, state: a.state, jobVersion: a.jobVersion })),
});

/** A command's answer as both sides can give it: a refusal code, or what happened. */
function expected(cmd: Command, result: ReturnType<typeof step>['result']): string {
  if (result.ok) {
    // A timeout of an attempt already unknown changes nothing, as a refusal does.
    return result.outcome === 'noop' && cmd.kind !== 'cancel' ? 'unchanged' : result.outcome;
  }
  if (result.refusal === 'not_live' && cmd.kind !== 'run' && cmd.kind !== 'complete') return 'unchanged';
  if (result.refusal === 'no_such_attempt') return 'attempt_not_found';
  return result.refusal;
}

async function refusalOf(action: () => Promise<string>): Promise<string> {
  try {
    return await action();
  } catch (error) {
    if (isOnejobError(error)) return error.code;
    throw error;
  }
}

const idOf = (real: Real, n: number): string => {
  const id = real.attempts.get(n);
  if (!id) throw new Error(`attempt ${n} was never started`);
  return id;
};

/** Runs one command through the function the engine calls for it; answers as `expected` does. */
async function runReal(real: Real, cmd: Command): Promise<string> {
  const { pool, operations } = onejob;
  switch (cmd.kind) {
    case 'start':
      return refusalOf(async () => {
        const { attempt } = await startAttempt(pool, operations, {
          jobId: real.jobId,
          origin: 'manual',
          provider: 'pay',
          leaseOwner: WORKER,
          leaseMs: LEASE_MS,
        });
        real.attempts.set(attempt.n, attempt.id);
        return 'started';
      });
    case 'claim': {
      const claimed = await claimQueuedJobs({ db: pool, keptPlans: false }, operations, {
        id: WORKER,
        leaseMs: LEASE_MS,
        limit: 1,
        rotation: async (operation) => [...operation.providers],
      });
      for (const c of claimed) {
        if (c.attempt.job_id !== real.jobId) throw new Error(`claimed another job: ${c.attempt.job_id}`);
        real.attempts.set(c.attempt.n, c.attempt.id);
      }
      return claimed.length === 0 ? 'nothing_claimed' : 'claimed';
    }
    case 'run': {
      const id = idOf(real, cmd.n);
      if (await markRunning(pool, id, WORKER, 60_000, LEASE_MS)) return 'running';
      // What the worker does when the job changed before the call: the attempt provably never left.
      const failed = await failAttempt(
        pool,
        operations,
        id,
        { error: { code: 'not_called', message: 'the job changed before this attempt called its provider' } },
        { from: ['starting'] },
      );
      return failed.failed ? 'failed' : 'unchanged';
    }
    case 'complete': {
      const done = await completeAttempt(pool, idOf(real, cmd.n), { result: { n: cmd.n } });
      return done.kind === 'won' ? 'won' : done.kind;
    }
    case 'fail': {
      const error = { code: 'declined', message: 'the provider refused' };
      const failed = await failAttempt(pool, operations, idOf(real, cmd.n), { error });
      return failed.failed ? 'failed' : 'unchanged';
    }
    case 'timeout': {
      const error = { code: 'timeout', message: 'no answer before the deadline' };
      const marked = await markUnknown(pool, operations, idOf(real, cmd.n), error);
      return marked.marked ? 'unknown' : 'unchanged';
    }
    case 'leaseExpired': {
      // The clock moves past this attempt's lease; the sweep does the rest.
      const id = idOf(real, cmd.n);
      await pool.query(
        `UPDATE onejob.attempts SET lease_expires_at = now() - interval '1 second'
         WHERE id = $1 AND lease_expires_at IS NOT NULL`,
        [id],
      );
      const expired = (await findExpiredLeases(pool)).find((e) => e.id === id);
      if (!expired) return 'unchanged';
      const { outcome } = await expireLease(onejob, expired);
      return outcome ?? 'unchanged';
    }
    case 'claimStream':
      return (await claimStream(pool, idOf(real, cmd.n))) ? 'stream_claimed' : 'stream_taken';
    case 'abandon':
      return refusalOf(async () => {
        await abandonAttempt(pool, operations, {
          jobId: real.jobId,
          ownerId: null,
          n: cmd.n,
          reason: 'given up by the property test',
        });
        return 'abandoned';
      });
    case 'cancel':
      return refusalOf(async () =>
        (await cancelJob(pool, { jobId: real.jobId, ownerId: null })).cancelled ? 'cancelled' : 'noop',
      );
  }
}

/** What must hold of the rows after any command, whatever the model says. */
function checkInvariants(before: Rows, after: Rows, exclusive: boolean, maxAttempts: number): void {
  const winners = after.attempts.filter((a) => a.state === 'succeeded');
  expect(winners.length).toBeLessThanOrEqual(1);
  expect(after.job.completedBy).toBe(winners[0]?.n ?? null);
  expect(after.job.state === 'succeeded').toBe(winners.length === 1);
  expect(after.job.version).toBeGreaterThanOrEqual(before.job.version);
  if (TERMINAL_JOB_STATES.includes(before.job.state as never)) {
    expect(after.job.state).toBe(before.job.state);
    expect(after.job.version).toBe(before.job.version);
  } else if (TERMINAL_JOB_STATES.includes(after.job.state as never)) {
    expect(after.job.version).toBeGreaterThan(before.job.version);
  }
  for (const a of after.attempts) {
    const old = before.attempts.find((b) => b.n === a.n);
    if (old && old.state !== a.state)
      expect(ATTEMPT_TRANSITIONS[old.state as keyof typeof ATTEMPT_TRANSITIONS]).toContain(a.state);
  }
  const live = after.attempts.filter((a) => LIVE_ATTEMPT_STATES.includes(a.state as never));
  if (exclusive) {
    expect(live.length).toBeLessThanOrEqual(1);
    // An exclusive job with an unknown attempt is itself unknown (or already closed).
    if (live.some((a) => a.state === 'unknown'))
      expect(['unknown', 'cancelled', 'succeeded']).toContain(after.job.state);
  }
  expect(after.attempts.length).toBeLessThanOrEqual(maxAttempts);
}

/** The model and the database it must agree with. */
interface World {
  machine: Machine;
  /** Commands run since the job closed. */
  afterClose: number;
}

type AttemptCommand = Extract<Command, { n: number }>['kind'];

/** A command as generated: one on an attempt names it by `pick` among the attempts it fits. */
type Spec = Exclude<Command, { n: number }> | { kind: AttemptCommand; pick: number };

/** Whether the engine would send `kind` to an attempt in `state`. */
function fits(kind: AttemptCommand, state: AttemptState, machine: Machine): boolean {
  // The worker only runs what is starting, and only a call that left can answer or time out.
  if (kind === 'run') return state === 'starting';
  if (kind === 'complete' || kind === 'timeout') return state !== 'starting';
  // Only a compat job's (pure) text claims its stream, while its call runs.
  if (kind === 'claimStream') return !machine.exclusive && (state === 'running' || state === 'unknown');
  return true;
}

/** Commands are mostly sent to live attempts; the late ones to finished attempts come now and then. */
const PREFER_LIVE: readonly AttemptCommand[] = ['complete', 'fail', 'timeout', 'leaseExpired'];

/** Commands sent to a closed job before the run stops exploring it. */
const AFTER_CLOSE = 4;

class Step implements fc.AsyncCommand<World, Real> {
  constructor(readonly spec: Spec) {}

  /** The command on this model's attempts; undefined when no attempt fits it. */
  resolve(machine: Machine): Command | undefined {
    const { spec } = this;
    if (!('pick' in spec)) return spec;
    let fitting = machine.attempts.filter((a) => fits(spec.kind, a.state, machine));
    const live = fitting.filter((a) => LIVE_ATTEMPT_STATES.includes(a.state));
    if (PREFER_LIVE.includes(spec.kind) && live.length > 0 && spec.pick > 0) fitting = live;
    // An abandon with nothing to abandon names an attempt that does not exist.
    if (fitting.length === 0)
      return spec.kind === 'abandon' ? { kind: 'abandon', n: machine.attempts.length + 1 } : undefined;
    return { kind: spec.kind, n: fitting[spec.pick % fitting.length]!.n };
  }

  check(world: Readonly<World>): boolean {
    if (world.afterClose >= AFTER_CLOSE) return false;
    // Half the results of a pure job's only live attempt wait, so siblings get to race it.
    const { machine } = world;
    const live = machine.attempts.filter((a) => LIVE_ATTEMPT_STATES.includes(a.state)).length;
    if (this.spec.kind === 'complete' && !machine.exclusive && live < 2 && this.spec.pick % 2 === 0)
      return false;
    return this.resolve(world.machine) !== undefined;
  }

  async run(world: World, real: Real): Promise<void> {
    await this.apply(world, real);
  }

  /** Runs the command on both sides, checks they agree, and gives the database's answer. */
  async apply(world: World, real: Real): Promise<string> {
    const cmd = this.resolve(world.machine)!;
    const { machine, result } = step(world.machine, cmd);
    const before = await readRows(real);
    const answer = await runReal(real, cmd);
    expect(answer, `answer to ${JSON.stringify(cmd)}`).toBe(expected(cmd, result));
    const after = await readRows(real);
    expect(after, `rows after ${JSON.stringify(cmd)}`).toEqual(modelRows(machine));
    checkInvariants(before, after, machine.exclusive, machine.maxAttempts);
    world.machine = machine;
    if (TERMINAL_JOB_STATES.includes(machine.job.state)) world.afterClose += 1;
    return answer;
  }

  // The command as generated: `pick` names the attempt among those that fit it when it runs.
  toString(): string {
    return JSON.stringify(this.spec);
  }
}

const pick = fc.nat({ max: 7 });
const onAttempt = (kind: AttemptCommand) => pick.map((pick): Spec => ({ kind, pick }));
// Weighted so that runs go on after their first attempts: a cancel closes the job for good.
const command = fc.oneof(
  ...(
    [
      [18, fc.constant<Spec>({ kind: 'start' })],
      [6, fc.constant<Spec>({ kind: 'claim' })],
      [18, onAttempt('run')],
      [6, onAttempt('complete')],
      [3, onAttempt('fail')],
      [3, onAttempt('timeout')],
      [3, onAttempt('leaseExpired')],
      [6, onAttempt('claimStream')],
      [3, onAttempt('abandon')],
      [1, fc.constant<Spec>({ kind: 'cancel' })],
    ] as const
  ).map(([weight, arbitrary]) => ({ weight, arbitrary: arbitrary.map((spec) => new Step(spec)) })),
);

let jobs = 0;

/** A fresh job of the operation; cancelled afterwards if still open, so no later claim takes it. */
async function withJob(
  exclusive: boolean,
  maxAttempts: number,
  fn: (world: World, real: Real) => Promise<void>,
): Promise<void> {
  const { job } = await onejob.jobs.create({
    ownerId: OWNER,
    idempotencyKey: `property-${process.pid}-${++jobs}`,
    operation: operationName(exclusive, maxAttempts),
    input: {},
  });
  const real: Real = { jobId: job.id, attempts: new Map() };
  try {
    await fn({ machine: newMachine(exclusive, maxAttempts), afterClose: 0 }, real);
  } finally {
    await cancelJob(onejob.pool, { jobId: job.id, ownerId: null }).catch((error: unknown) => {
      if (!isOnejobError(error, 'job_completed')) throw error;
    });
  }
}

describe('attempt state machine, through the database', () => {
  it('under any interleaving the database answers and holds what the model says: at most one winner, versions only grow, exclusive jobs never overlap or start past an unknown', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        // Mostly jobs with room for several attempts: races need two of them live at once.
        fc.oneof(
          { weight: 1, arbitrary: fc.constant(1) },
          { weight: 4, arbitrary: fc.constantFrom(2, 3, 4) },
        ),
        // Unbiased: fast-check's bias towards short runs leaves too few jobs with racing attempts.
        fc.noBias(fc.commands([command], { maxCommands: 60, size: 'max' })),
        (exclusive, maxAttempts, cmds) =>
          withJob(exclusive, maxAttempts, (world, real) => {
            return fc.asyncModelRun(() => ({ model: world, real }), cmds);
          }),
      ),
      { numRuns: 50 },
    );
  });

  /**
   * Runs a fixed script through the same steps, each answer and row checked against the
   * model: commands apart by spaces, an attempt's number after its command (`run2`).
   */
  async function script(exclusive: boolean, text: string): Promise<string[]> {
    const commands = text.split(' ').map((word) => {
      const [, kind, n] = /^([a-zA-Z]+)(\d*)$/.exec(word)!;
      return (n ? { kind, n: Number(n) } : { kind }) as Command;
    });
    const answers: string[] = [];
    await withJob(exclusive, 3, async (world, real) => {
      for (const cmd of commands) answers.push(await new Step(cmd as Spec).apply(world, real));
    });
    return answers;
  }

  it('a late result after abandon or cancel is discarded, never a win', async () => {
    for (const exclusive of [true, false]) {
      expect(await script(exclusive, 'start run1 timeout1 abandon1 complete1')).toEqual([
        'started',
        'running',
        'unknown',
        'abandoned',
        'discarded',
      ]);
      expect((await script(exclusive, 'start run1 timeout1 cancel complete1')).slice(-2)).toEqual([
        'cancelled',
        'discarded',
      ]);
    }
  });

  it('a stream claim fences out its running siblings: their results lose the race to the claimer', async () => {
    const answers = await script(
      false,
      'start start run1 run2 claimStream1 claimStream2 complete2 complete1',
    );
    expect(answers.slice(-4)).toEqual(['stream_claimed', 'stream_taken', 'lost_race', 'won']);
  });

  it('an abandon fences out only the abandoned attempt: a sibling started before it can still win', async () => {
    const answers = await script(false, 'claim start run2 abandon1 complete1 complete2');
    expect(answers.slice(-3)).toEqual(['abandoned', 'discarded', 'won']);
  });
});
