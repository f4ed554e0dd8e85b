// SQLSTATE codes the code reacts to. Anything not listed here is treated as unexpected.

/** A unique constraint or unique index rejected the row. */
export const UNIQUE_VIOLATION = '23505';
/** A CHECK constraint rejected the row. */
export const CHECK_VIOLATION = '23514';
/** A foreign key points nowhere. */
export const FOREIGN_KEY_VIOLATION = '23503';
/** Two transactions waited on each other; PostgreSQL aborted one. Safe to retry. */
export const DEADLOCK_DETECTED = '40P01';
/** SERIALIZABLE transaction could not be ordered. Safe to retry. */
export const SERIALIZATION_FAILURE = '40001';
/** Raised by onejob.refuse_archived_key(): the idempotency key belongs to an archived job. */
export const ARCHIVED_KEY = 'OJ001';
/** Raised by onejob.refuse_history_edit(): UPDATE/DELETE on an append-only table. */
export const APPEND_ONLY = 'OJ002';
/** Raised by onejob.refuse_illegal_attempt_transition() / refuse_illegal_job_transition(). */
export const ILLEGAL_TRANSITION = 'OJ003';
/** A hold would take an owner's spent + held past its budget (migrations/0013). */
export const BUDGET_EXHAUSTED = 'OJ010';
/** A pending transfer posted for more than it holds (migrations/0013). */
export const POST_EXCEEDS_HOLD = 'OJ011';
/** Statement cancelled by statement_timeout or pg_cancel_backend. */
export const QUERY_CANCELED = '57014';
/** A transaction-only command (SAVEPOINT) ran outside a transaction block. */
export const NO_ACTIVE_SQL_TRANSACTION = '25P01';

/** No host of a DATABASE_URL host list gave a suitable session (src/db/connectToPrimary.ts). */
export const UNABLE_TO_CONNECT = '08001';
/** A write reached a read-only session: the host is a standby now, or was demoted. */
export const READ_ONLY_SQL_TRANSACTION = '25006';
/** The statement name does not exist on this server session: behind a transaction pooler, another client's session. */
export const INVALID_SQL_STATEMENT_NAME = '26000';
/** A prepared statement of this name exists already on this server session: behind a transaction pooler, another client's. */
export const DUPLICATE_PREPARED_STATEMENT = '42P05';

/** Class 22, data exception: a value PostgreSQL cannot store or compare (bad date, overflow, NUL). */
export const DATA_EXCEPTION_CLASS = '22';

/** True for a data exception: the request carried a value the database refuses, not a bug. */
export function isDataException(error: unknown): boolean {
  const code = sqlState(error);
  return code !== undefined && code.length === 5 && code.startsWith(DATA_EXCEPTION_CLASS);
}

/** Classes and codes that mean "the server is not there right now", not "your query is wrong". */
const UNAVAILABLE_CODES = new Set([
  // A host that stopped being the primary (failover): the next connection finds the new one.
  READ_ONLY_SQL_TRANSACTION,
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, recovery)
  '53300', // too_many_connections
  // The database or its credentials are gone (dropped, renamed, password rotated): the
  // server answers, but no query can run until an operator fixes it. Callers retry later.
  '3D000', // invalid_catalog_name
  '28P01', // invalid_password
  '28000', // invalid_authorization_specification
]);

const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** True when an error from `pg` means the database cannot be reached, as opposed to a bad query. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNAVAILABLE_CODES.has(code) || code.startsWith('08')) return true;
  if (UNAVAILABLE_NODE_CODES.has(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return (
    message.includes('Connection terminated') ||
    message.includes('timeout exceeded when trying to connect') ||
    message.includes('Client has encountered a connection error') ||
    message.includes('Connection ended unexpectedly')
  );
}

export function sqlState(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') {
    return (error as { code: string }).code;
  }
  return undefined;
}
