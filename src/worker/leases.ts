// Leases: a worker holds each attempt it runs for leaseMs and renews it while it works.
// A worker that dies stops renewing; the sweep then treats its attempts as the state
// machine says (never called: failed; called: unknown).
import type { Queryable } from '../db/createPool.js';
import { ATTEMPT_COLUMNS, type AttemptRow } from '../jobs/attemptRow.js';

const RUNNING_SQL = `
UPDATE onejob.attempts a SET state = 'running', deadline_at = now() + make_interval(secs => $3::float8 / 1000),
  lease_expires_at = now() + make_interval(secs => $4::float8 / 1000)
FROM onejob.jobs j
WHERE a.id = $1 AND a.lease_owner = $2 AND a.state = 'starting' AND j.id = a.job_id
  AND j.completed_by IS NULL AND j.state IN ('queued', 'running', 'unknown')
RETURNING ${ATTEMPT_COLUMNS.split(', ')
  .map((c) => `a.${c}`)
  .join(', ')}`;

/**
 * starting -> running, committed before the provider is called: from here on the call
 * may have left, so a lost lease means unknown. Undefined when the attempt was
 * abandoned, cancelled or its job completed meanwhile: then the call must not be made.
 */
export async function markRunning(
  db: Queryable,
  attemptId: string,
  workerId: string,
  timeoutMs: number,
  leaseMs: number,
): Promise<AttemptRow | undefined> {
  const { rows } = await db.query<AttemptRow>(RUNNING_SQL, [attemptId, workerId, timeoutMs, leaseMs]);
  return rows[0];
}

const RENEW_SQL = `
UPDATE onejob.attempts SET lease_expires_at = now() + make_interval(secs => $3::float8 / 1000)
WHERE id = ANY($1::uuid[]) AND lease_owner = $2 AND state IN ('starting', 'running', 'unknown')
RETURNING id`;

/** Renews this worker's leases; returns the ids still held (the others were resolved elsewhere). */
export async function renewLeases(
  db: Queryable,
  ids: string[],
  workerId: string,
  leaseMs: number,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(RENEW_SQL, [ids, workerId, leaseMs]);
  return new Set(rows.map((r) => r.id));
}

const RELEASE_SQL = `
UPDATE onejob.attempts SET lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2 AND state = 'unknown'`;

/** Hands an unknown attempt over to reconciliation (the worker stopped listening for it). */
export async function releaseLease(db: Queryable, attemptId: string, workerId: string): Promise<void> {
  await db.query(RELEASE_SQL, [attemptId, workerId]);
}

const EXPIRED_SQL = `
SELECT id, job_id, state FROM onejob.attempts
WHERE state IN ('starting', 'running') AND lease_expires_at < now()
ORDER BY lease_expires_at
LIMIT $1`;

/** An attempt whose worker stopped renewing the lease, with its job (whose waiters are woken). */
export interface ExpiredLease {
  id: string;
  job_id: string;
  state: 'starting' | 'running';
}

/** Attempts whose worker stopped renewing the lease. */
export async function findExpiredLeases(db: Queryable, limit = 100): Promise<ExpiredLease[]> {
  const { rows } = await db.query<ExpiredLease>(EXPIRED_SQL, [limit]);
  return rows;
}

const RECONCILE_SQL = `
WITH picked AS (
  SELECT id FROM onejob.attempts
  WHERE state = 'unknown' AND (lease_expires_at IS NULL OR lease_expires_at < now())
  ORDER BY lease_expires_at NULLS FIRST
  LIMIT 1
  FOR UPDATE SKIP LOCKED
)
UPDATE onejob.attempts a SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::float8 / 1000)
FROM picked WHERE a.id = picked.id
RETURNING ${ATTEMPT_COLUMNS.split(', ')
  .map((c) => `a.${c}`)
  .join(', ')}`;

/**
 * Takes one unknown attempt nobody is listening to, for reconciliation. The lease keeps
 * other workers off it and, once it lapses unresolved, spaces out the next try.
 */
export async function claimUnknownAttempt(
  db: Queryable,
  workerId: string,
  leaseMs: number,
): Promise<AttemptRow | undefined> {
  const { rows } = await db.query<AttemptRow>(RECONCILE_SQL, [workerId, leaseMs]);
  return rows[0];
}
