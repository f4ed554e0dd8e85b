// Reads and writes of onejob.provider_verifications. Rows are history: inserted once,
// never updated, so "the latest verification" is a question of order, not of state.
import type { Queryable } from '../../db/createPool.js';

export interface VerificationRow {
  id: string;
  provider: string;
  operation: string;
  contractHash: string;
  model: string | null;
  passed: boolean;
  report: unknown;
  requestedBy: string;
  startedAt: Date;
  finishedAt: Date;
}

const COLUMNS = `id, provider, operation, contract_hash AS "contractHash", model, passed, report,
  requested_by AS "requestedBy", started_at AS "startedAt", finished_at AS "finishedAt"`;

const INSERT_SQL = `
INSERT INTO onejob.provider_verifications (id, provider, operation, contract_hash, model, passed, report, requested_by, started_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
RETURNING ${COLUMNS}`;

export async function recordVerification(
  db: Queryable,
  row: Omit<VerificationRow, 'finishedAt'>,
): Promise<VerificationRow> {
  const { rows } = await db.query<VerificationRow>(INSERT_SQL, [
    row.id,
    row.provider,
    row.operation,
    row.contractHash,
    row.model,
    row.passed,
    JSON.stringify(row.report),
    row.requestedBy,
    row.startedAt,
  ]);
  return rows[0]!;
}

const LATEST_FOR_HASH_SQL = `
SELECT passed FROM onejob.provider_verifications
WHERE provider = $1 AND operation = $2 AND contract_hash = $3
ORDER BY finished_at DESC, id DESC
LIMIT 1`;

/** Did the latest verification of this exact contract pass? Undefined when there is none. */
export async function latestPassedForContract(
  db: Queryable,
  provider: string,
  operation: string,
  hash: string,
): Promise<boolean | undefined> {
  const { rows } = await db.query<{ passed: boolean }>(LATEST_FOR_HASH_SQL, [provider, operation, hash]);
  return rows[0]?.passed;
}

export interface LatestPair {
  provider: string;
  operation: string;
  /** The latest verification under the given hash, if any. */
  current: { id: string; passed: boolean; finishedAt: Date } | null;
  /** The latest verification under any hash, if any. */
  latest: { id: string; passed: boolean; contractHash: string; finishedAt: Date } | null;
}

// One round trip for the whole matrix: for each (provider, operation, current hash) asked
// about, the latest row under that hash and the latest under any hash.
const MATRIX_SQL = `
SELECT q.provider, q.operation,
       cur.id AS "curId", cur.passed AS "curPassed", cur.finished_at AS "curAt",
       any_.id AS "anyId", any_.passed AS "anyPassed", any_.contract_hash AS "anyHash", any_.finished_at AS "anyAt"
FROM unnest($1::text[], $2::text[], $3::text[]) AS q(provider, operation, hash)
LEFT JOIN LATERAL (
  SELECT id, passed, finished_at FROM onejob.provider_verifications v
  WHERE v.provider = q.provider AND v.operation = q.operation AND v.contract_hash = q.hash
  ORDER BY finished_at DESC, id DESC LIMIT 1
) cur ON true
LEFT JOIN LATERAL (
  SELECT id, passed, contract_hash, finished_at FROM onejob.provider_verifications v
  WHERE v.provider = q.provider AND v.operation = q.operation
  ORDER BY finished_at DESC, id DESC LIMIT 1
) any_ ON true`;

export async function latestVerifications(
  db: Queryable,
  pairs: { provider: string; operation: string; hash: string }[],
): Promise<LatestPair[]> {
  if (pairs.length === 0) return [];
  const { rows } = await db.query<{
    provider: string;
    operation: string;
    curId: string | null;
    curPassed: boolean | null;
    curAt: Date | null;
    anyId: string | null;
    anyPassed: boolean | null;
    anyHash: string | null;
    anyAt: Date | null;
  }>(MATRIX_SQL, [pairs.map((p) => p.provider), pairs.map((p) => p.operation), pairs.map((p) => p.hash)]);
  return rows.map((r) => ({
    provider: r.provider,
    operation: r.operation,
    current: r.curId ? { id: r.curId, passed: r.curPassed!, finishedAt: r.curAt! } : null,
    latest: r.anyId
      ? { id: r.anyId, passed: r.anyPassed!, contractHash: r.anyHash!, finishedAt: r.anyAt! }
      : null,
  }));
}

const BY_ID_SQL = `SELECT ${COLUMNS} FROM onejob.provider_verifications WHERE id = $1`;

export async function getVerification(db: Queryable, id: string): Promise<VerificationRow | undefined> {
  const { rows } = await db.query<VerificationRow>(BY_ID_SQL, [id]);
  return rows[0];
}
