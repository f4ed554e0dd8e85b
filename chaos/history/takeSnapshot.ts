// Reads back what the database holds at the end of a run. Tables of features a build does
// not have yet come back as null, and the checks that need them are skipped.
import type pg from 'pg';
import { EFFECTS_TABLE } from '../load/runEventConsumer.js';
import type { BudgetUsageRow, DbSnapshot } from './types.js';

const JOBS_SQL = `
SELECT id, owner_id, idempotency_key, operation, state, completed_by, version, finished_at,
       result->>'answerId' AS result_answer_id
FROM onejob.jobs`;

const ATTEMPTS_SQL = `
SELECT id, job_id, n, state, exclusive, started_at, finished_at, provider, origin, cost_micros, cost_posted_at
FROM onejob.attempts`;

// Every transfer on a cost account, whatever its id: a cost posted twice under two ids
// must show up too.
const COST_TRANSFERS_SQL = `
SELECT owner_id, id, debit_account, credit_account, amount::text AS amount, currency, reference
FROM onejob.ledger_transfers
WHERE id LIKE 'attempt-cost:%' OR debit_account LIKE 'usage:%' OR credit_account LIKE 'provider:%'`;

const VERIFICATIONS_SQL = `
SELECT provider, operation, contract_hash, passed, started_at, finished_at FROM onejob.provider_verifications`;

const OUTBOX_SQL = `
SELECT id, type, subject, event->'data'->>'idempotencyKey' AS idempotency_key,
       event->'data'->>'completedBy' AS completed_by
FROM onejob.outbox`;

const LEDGER_SQL = `
SELECT owner_id, currency,
       coalesce(sum(amount) FILTER (WHERE side = 'debit'), 0)::text AS debits,
       coalesce(sum(amount) FILTER (WHERE side = 'credit'), 0)::text AS credits
FROM onejob.ledger_entries GROUP BY owner_id, currency`;

async function exists(db: pg.PoolClient, table: string): Promise<boolean> {
  const { rows } = await db.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table]);
  return rows[0]?.t !== null;
}

/** The rows of `sql`, each through `map`; undefined where `table` does not exist (a schema from before it). */
async function rowsIfTable<T>(
  db: pg.PoolClient,
  table: string,
  sql: string,
  map: (row: pg.QueryResultRow) => T,
): Promise<T[] | undefined> {
  return (await exists(db, table)) ? (await db.query(sql)).rows.map(map) : undefined;
}

/** One consistent snapshot (REPEATABLE READ): processes may still be running while it is read. */
export async function takeSnapshot(pool: pg.Pool, o: { helper: boolean }): Promise<DbSnapshot> {
  const db = await pool.connect();
  try {
    await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const snapshot = await read(db, o);
    await db.query('COMMIT');
    return snapshot;
  } finally {
    db.release();
  }
}

const BUDGET_USAGE_SQL = `
SELECT u.owner_id, u.currency, u.period, u.period_start, b.limit_micros, u.spent_micros, u.held_micros
FROM onejob.budget_usage u
JOIN onejob.budgets b ON b.owner_id = u.owner_id AND b.currency = u.currency`;

const OPEN_HOLDS_SQL = `
SELECT p.id, a.state
FROM onejob.ledger_pending_transfers p
LEFT JOIN onejob.ledger_pending_resolutions r ON r.owner_id = p.owner_id AND r.pending_id = p.id
LEFT JOIN onejob.attempts a ON p.id = 'attempt-cost:' || a.id::text
WHERE r.pending_id IS NULL`;

/** Every budget's usage per period, with the budget's limit now. */
export async function readBudgetUsage(db: Pick<pg.PoolClient, 'query'>): Promise<BudgetUsageRow[]> {
  const { rows } = await db.query(BUDGET_USAGE_SQL);
  return rows.map((r) => ({
    ownerId: r.owner_id as string,
    currency: r.currency as string,
    period: r.period as string,
    periodStart: (r.period_start as Date).toISOString(),
    limitMicros: Number(r.limit_micros),
    spentMicros: Number(r.spent_micros),
    heldMicros: Number(r.held_micros),
  }));
}

async function read(db: pg.PoolClient, o: { helper: boolean }): Promise<DbSnapshot> {
  const jobs = await db.query(JOBS_SQL);
  const attempts = await db.query(ATTEMPTS_SQL);
  const outbox = await db.query(OUTBOX_SQL);
  const effects =
    o.helper && (await exists(db, EFFECTS_TABLE))
      ? (
          await db.query(`SELECT event_id, count(*)::int AS n FROM ${EFFECTS_TABLE} GROUP BY event_id`)
        ).rows.map((r) => ({ eventId: r.event_id as string, count: r.n as number }))
      : null;
  const ledger =
    (await rowsIfTable(db, 'onejob.ledger_entries', LEDGER_SQL, (r) => ({
      ownerId: r.owner_id as string,
      currency: r.currency as string,
      debits: Number(r.debits),
      credits: Number(r.credits),
    }))) ?? null;
  const inbox =
    (await rowsIfTable(
      db,
      'onejob.inbox_events',
      'SELECT source, event_id, job_id FROM onejob.inbox_events',
      (r) => ({
        source: r.source as string,
        eventId: r.event_id as string,
        jobId: r.job_id as string,
      }),
    )) ?? null;
  const costTransfers =
    (await rowsIfTable(db, 'onejob.ledger_transfers', COST_TRANSFERS_SQL, (r) => ({
      ownerId: r.owner_id as string,
      id: r.id as string,
      debitAccount: r.debit_account as string,
      creditAccount: r.credit_account as string,
      amount: Number(r.amount),
      currency: r.currency as string,
      reference: r.reference as string | null,
    }))) ?? [];
  const transfers =
    (await rowsIfTable(
      db,
      'onejob.ledger_transfers',
      'SELECT owner_id, id FROM onejob.ledger_transfers',
      (r) => ({
        ownerId: r.owner_id as string,
        id: r.id as string,
      }),
    )) ?? [];
  const verifications =
    (await rowsIfTable(db, 'onejob.provider_verifications', VERIFICATIONS_SQL, (r) => ({
      provider: r.provider as string,
      operation: r.operation as string,
      contractHash: r.contract_hash as string,
      passed: r.passed as boolean,
      startedAt: (r.started_at as Date).getTime(),
      finishedAt: (r.finished_at as Date).getTime(),
    }))) ?? [];
  const budgeted = await exists(db, 'onejob.budget_usage');
  const budgets = budgeted ? await readBudgetUsage(db) : undefined;
  const openHolds = budgeted
    ? (await db.query(OPEN_HOLDS_SQL)).rows.map((r) => ({
        holdId: r.id as string,
        attemptState: (r.state as string | null) ?? null,
      }))
    : undefined;
  return {
    ...(budgets ? { budgets } : {}),
    ...(openHolds ? { openHolds } : {}),
    jobs: jobs.rows.map((r) => ({
      id: r.id,
      ownerId: r.owner_id,
      idempotencyKey: r.idempotency_key,
      operation: r.operation,
      state: r.state,
      completedBy: r.completed_by,
      version: r.version,
      finishedAt: r.finished_at ? (r.finished_at as Date).getTime() : null,
      resultAnswerId: r.result_answer_id ?? null,
    })),
    attempts: attempts.rows.map((r) => ({
      id: r.id,
      jobId: r.job_id,
      n: r.n,
      state: r.state,
      exclusive: r.exclusive,
      startedAt: (r.started_at as Date).getTime(),
      finishedAt: r.finished_at ? (r.finished_at as Date).getTime() : null,
      provider: r.provider,
      origin: r.origin,
      costMicros: r.cost_micros === null ? null : Number(r.cost_micros),
      costPostedAt: r.cost_posted_at ? (r.cost_posted_at as Date).getTime() : null,
    })),
    outbox: outbox.rows.map((r) => ({
      id: r.id,
      type: r.type,
      subject: r.subject,
      ...(r.idempotency_key ? { idempotencyKey: r.idempotency_key } : {}),
      ...(r.completed_by ? { completedBy: r.completed_by } : {}),
    })),
    effects,
    ledger,
    inbox,
    costTransfers,
    transfers,
    verifications,
  };
}
