// The holds of a batch of attempts in one statement and one commit (migration 0020): an
// owner's usage row and account totals are locked once per batch, not once per attempt.
import type { OnejobConfig } from '../config/types.js';
import type { Queryable } from '../db/createPool.js';
import type { Operation } from '../operations/operationRegistry.js';
import { type AttemptHold, budgetExhausted, holdRow, TAKE_HOLDS_SQL } from './holdForAttempt.js';
import { holdPrice } from './holdPrice.js';

export interface HoldRequest {
  attemptId: string;
  jobId: string;
  provider: string;
  operation: Operation;
  input: Record<string, unknown>;
}

/**
 * What became of an attempt's hold: `none` (its provider is not priced), `held`, `refused`
 * (the budget cannot hold it; `detail` says what was left), or `ended` (the attempt ended
 * before its hold, and is not called).
 */
export type HoldOutcome =
  | { kind: 'none' | 'held' | 'ended' }
  | { kind: 'refused'; error: ReturnType<typeof budgetExhausted> };

/** Takes the holds of `attempts` in one transaction; an attempt absent from the answer ended. */
export async function takeHolds(
  db: Queryable,
  config: Pick<OnejobConfig, 'providers'>,
  attempts: readonly HoldRequest[],
): Promise<Map<string, HoldOutcome>> {
  const outcomes = new Map<string, HoldOutcome>();
  const holds: AttemptHold[] = [];
  for (const a of attempts) {
    const price = await holdPrice(config, a.operation, a.provider, a.input);
    if (!price) outcomes.set(a.attemptId, { kind: 'none' });
    else holds.push({ ...price, attemptId: a.attemptId, jobId: a.jobId, provider: a.provider });
  }
  if (holds.length === 0) return outcomes;
  const { rows } = await db.query<{ attempt_id: string; outcome: 'held' | 'refused'; detail: string | null }>(
    TAKE_HOLDS_SQL,
    [JSON.stringify(holds.map(holdRow))],
  );
  for (const r of rows)
    outcomes.set(
      r.attempt_id,
      r.outcome === 'held'
        ? { kind: 'held' }
        : { kind: 'refused', error: budgetExhausted({ detail: r.detail }) },
    );
  for (const h of holds) if (!outcomes.has(h.attemptId)) outcomes.set(h.attemptId, { kind: 'ended' });
  return outcomes;
}
