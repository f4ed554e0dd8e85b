import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { BatchOutcome, BatchRow } from './createJobsBatch.js';
import { attemptsJson, jobColumns } from './jobView.js';

// The jobs a set of (owner, idempotency key) pairs already name, in one read-only statement:
// the replays of a group-commit batch are answered from it without the intake statement's
// INSERT, its events and its triggers. The pairs travel as two arrays unnested side by
// side; each is joined to jobs on both columns, so a request sees only its own owner's job
// whatever else shares the statement. Looked up one pair at a time (LATERAL, OFFSET 0) on
// the key's unique index, as the intake statement does (test/db/queryPlans.test.ts).
// Sent as a named prepared statement (unnamed behind a transaction pooler, src/db/unnamedStatements.ts).
export const FIND_BY_KEYS_STATEMENT = 'onejob_find_jobs_by_key';
export const FIND_BY_KEYS_SQL = `
SELECT r.ord::int AS ord, false AS created, ${attemptsJson('j.id')} AS attempts, ${jobColumns('j')}
FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(owner_id, idempotency_key, ord)
CROSS JOIN LATERAL (
  SELECT * FROM onejob.jobs x
  WHERE x.owner_id = r.owner_id AND x.idempotency_key = r.idempotency_key OFFSET 0
) j`;

export interface JobKey {
  ownerId: string;
  idempotencyKey: string;
}

/**
 * The job each (owner, key) names, in input order, as a `created: false` row; undefined
 * where the owner has no live job under the key. Every row is checked to belong to the
 * request it answers.
 */
export async function findJobsByKey(db: Queryable, keys: readonly JobKey[]): Promise<BatchOutcome> {
  const { rows } = await db.query<BatchRow>({
    name: FIND_BY_KEYS_STATEMENT,
    text: FIND_BY_KEYS_SQL,
    values: [keys.map((k) => k.ownerId), keys.map((k) => k.idempotencyKey)],
  });
  const found: BatchOutcome = new Array(keys.length).fill(undefined);
  for (const row of rows) {
    const i = row.ord - 1;
    const k = keys[i];
    if (!k || found[i] || row.owner_id !== k.ownerId || row.idempotency_key !== k.idempotencyKey) {
      throw new OnejobError(
        'internal_error',
        `The key lookup returned a row that request ${row.ord} did not ask for.`,
      );
    }
    found[i] = row;
  }
  return found;
}
