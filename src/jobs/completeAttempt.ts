import type { Queryable } from '../db/createPool.js';
import { withTransaction } from '../db/withTransaction.js';
import { recordJobEvent } from '../events/recordJobEvent.js';
import { type AttemptRow, payloadDigest } from './attemptRow.js';
import { type AttemptResult, completeWinners } from './completeWinners.js';
import { lockJob } from './lockJob.js';
import { attemptStatesInto, sqlStates } from './stateMachine.js';

export type { AttemptResult };

export type Completion =
  /** This attempt's result is the job's result. */
  | { kind: 'won'; jobId: string; version: number }
  /** Another attempt won first (or the job was fenced): the payload was discarded, its digest kept. */
  | { kind: 'lost_race'; jobId: string; winner: string | null; digest: string }
  /** The attempt was already over (abandoned, cancelled, resolved): a late result, discarded and recorded. */
  | { kind: 'discarded'; jobId: string; attemptState: string; digest: string };

const JOB_OF_SQL = 'SELECT job_id FROM onejob.attempts WHERE id = $1';

// Read under the job's lock: the version the attempt carries cannot move meanwhile (a
// stream claim moves it under the same lock).
const OFFERED_SQL = 'SELECT id, job_id, n, provider, job_version FROM onejob.attempts WHERE id = $1';

const LOSE_SQL = `
UPDATE onejob.attempts SET state = 'lost_race', finished_at = now(), lease_expires_at = NULL, result_digest = $2,
  usage = $3::jsonb, cost_micros = $4, error = $5::jsonb
WHERE id = $1 AND state IN (${sqlStates(attemptStatesInto('lost_race'))})
RETURNING n, provider`;

// Not a state change: the attempt keeps its state, the late payload leaves only its digest.
const LATE_SQL = `
UPDATE onejob.attempts SET result_digest = coalesce(result_digest, $2), usage = coalesce(usage, $3::jsonb),
  cost_micros = coalesce(cost_micros, $4)
WHERE id = $1
RETURNING n, provider, state`;

const WINNER_SQL = 'SELECT id, n, provider FROM onejob.attempts WHERE id = $1';

/**
 * Offers an attempt's result to its job, under the job's lock. Exactly one attempt of a
 * job can ever win, through the batch statement (completeWinners); every other result is
 * discarded (only its SHA-256 digest is kept) and the race or the late arrival is
 * recorded in the same transaction.
 */
export async function completeAttempt(
  db: Queryable,
  attemptId: string,
  outcome: AttemptResult,
): Promise<Completion> {
  return withTransaction(db, async (tx) => {
    const { rows: of } = await tx.query<{ job_id: string }>(JOB_OF_SQL, [attemptId]);
    const jobId = of[0]?.job_id;
    if (!jobId) throw new Error(`attempt ${attemptId} does not exist`);
    const job = await lockJob(tx, jobId);
    if (!job) throw new Error(`job ${jobId} of attempt ${attemptId} does not exist`);
    // The compare-and-swap is the batch's (completeWinners), here a batch of one: the
    // attempt wins only if the job still has the version the attempt read when it started
    // and nobody completed it since.
    const { rows: offered } = await tx.query<
      Pick<AttemptRow, 'id' | 'job_id' | 'n' | 'provider' | 'job_version'>
    >(OFFERED_SQL, [attemptId]);
    const attempt = offered[0]!;
    const won = await completeWinners(tx, [{ attempt, traceparent: job.traceparent, ...outcome }]);
    const version = won.get(attemptId);
    if (version !== undefined) return { kind: 'won', jobId, version };
    const usage = outcome.usage ?? null;
    const cost = outcome.costMicros ?? null;

    const digest = payloadDigest(outcome.result);
    const winnerId = job.completed_by;
    const reason = winnerId
      ? 'another attempt completed the job first'
      : `the job is ${job.state} at version ${job.version}`;
    const lost = await tx.query<{ n: number; provider: string }>(LOSE_SQL, [
      attemptId,
      digest,
      usage,
      cost,
      { code: 'lost_race', message: reason },
    ]);
    const loser = lost.rows[0];
    if (loser) {
      const winner = winnerId
        ? (await tx.query<{ id: string; n: number; provider: string }>(WINNER_SQL, [winnerId])).rows[0]
        : undefined;
      await recordJobEvent(tx, {
        jobId,
        attemptId,
        type: 'race_lost',
        publish: 'onejob.attempt.lost_race',
        data: {
          loser: { attemptId, n: loser.n, provider: loser.provider },
          winner: winner ? { attemptId: winner.id, n: winner.n, provider: winner.provider } : null,
          reason,
          discardedDigest: digest,
        },
        traceparent: job.traceparent,
      });
      return { kind: 'lost_race', jobId, winner: winnerId, digest };
    }

    const { rows: late } = await tx.query<{ n: number; provider: string; state: string }>(LATE_SQL, [
      attemptId,
      digest,
      usage,
      cost,
    ]);
    await recordJobEvent(tx, {
      jobId,
      attemptId,
      type: 'late_result_discarded',
      data: {
        attemptId,
        n: late[0]?.n,
        attemptState: late[0]?.state,
        discardedDigest: digest,
        completedBy: winnerId,
      },
    });
    return { kind: 'discarded', jobId, attemptState: late[0]?.state ?? 'unknown', digest };
  });
}
