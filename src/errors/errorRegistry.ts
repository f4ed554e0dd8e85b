// Every error a client can see: a stable string code, its HTTP status and a title.
// docs/errors.md documents each code; a test fails when one is missing there.

export interface ErrorSpec {
  status: number;
  title: string;
}

/**
 * Every error code with its HTTP status and title (docs/errors.md).
 *
 * @example
 * ```ts
 * import { errorRegistry } from 'onejob';
 *
 * errorRegistry.idempotency_key_reused.status; // 409
 * ```
 */
export const errorRegistry = {
  // Authentication and routing
  unauthorized: { status: 401, title: 'Missing or invalid bearer token' },
  admin_token_required: { status: 403, title: 'This operator endpoint needs the admin token' },
  metrics_token_required: { status: 403, title: 'The metrics endpoint needs the metrics token' },
  rate_limited: { status: 429, title: 'Too many requests from this owner; retry after Retry-After seconds' },
  authentication_throttled: {
    status: 429,
    title: 'Too many failed authentications from this address; retry after Retry-After seconds',
  },
  route_not_found: { status: 404, title: 'No such route' },
  method_not_allowed: { status: 405, title: 'Method not allowed on this route' },

  // Request shape
  invalid_json: { status: 400, title: 'The request body is not valid JSON' },
  request_invalid: { status: 400, title: 'The request does not match the expected shape' },
  unsupported_media_type: { status: 415, title: 'The request body must be application/json' },
  payload_too_large: { status: 413, title: 'The request body is larger than 1 MiB' },
  payload_too_many_values: { status: 413, title: 'The request body holds more than 100,000 values' },
  request_timeout: { status: 408, title: 'The request was not received in time' },
  value_invalid: { status: 400, title: 'A value in the request cannot be stored or compared' },
  reserved_namespace: {
    status: 422,
    title: 'This name belongs to a namespace onejob reserves for its own records',
  },

  // Job intake
  idempotency_key_missing: { status: 400, title: 'The Idempotency-Key header is required' },
  idempotency_key_invalid: {
    status: 400,
    title: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters',
  },
  idempotency_key_reused: {
    status: 409,
    title: 'This idempotency key was already used with a different request body',
  },
  operation_unknown: { status: 422, title: 'No such operation is configured' },
  input_invalid: { status: 422, title: "The input does not match the operation's input schema" },
  job_not_found: { status: 404, title: 'No such job' },

  // Attempts
  attempt_not_found: { status: 404, title: 'No such attempt' },
  attempt_in_flight: { status: 409, title: 'An attempt of this job is still starting or running' },
  attempt_outcome_unknown: {
    status: 409,
    title: 'An earlier attempt has an unknown outcome; resolve or abandon it first',
  },
  attempt_not_abandonable: { status: 409, title: 'Only a running or unknown attempt can be abandoned' },
  job_completed: { status: 409, title: 'The job already has a final outcome' },
  max_attempts_reached: { status: 409, title: 'The job has used all of its attempts' },
  provider_unknown: { status: 422, title: 'No such provider for this operation' },
  provider_not_verified: {
    status: 422,
    title: "The provider has no passing contract verification for this operation's current contract",
  },

  // Inbox
  source_unknown: { status: 404, title: 'No such inbox source' },
  event_id_missing: { status: 400, title: 'The delivery carries no event id' },
  event_id_invalid: { status: 400, title: 'The event id must be 1 to 255 printable ASCII characters' },
  signature_invalid: { status: 401, title: 'The webhook signature is missing, invalid or too old' },

  // Ledger
  transfer_exists_with_different_fields: {
    status: 409,
    title: 'A transfer with this id already exists with different fields',
  },
  transfer_already_reversed: { status: 409, title: 'This transfer has already been reversed' },
  budget_exhausted: { status: 402, title: "The owner's budget has too little left for this call" },
  transfer_not_found: { status: 404, title: 'No such transfer' },
  pending_transfer_not_found: { status: 404, title: 'No such pending transfer' },
  transfer_not_pending: { status: 409, title: 'This transfer was recorded as posted, not as pending' },
  pending_transfer_already_resolved: {
    status: 409,
    title: 'This pending transfer has already been posted or voided otherwise',
  },
  pending_amount_exceeds_hold: { status: 422, title: 'A pending transfer posts at most the amount it holds' },
  budget_not_found: { status: 404, title: 'This owner has no budget in this currency' },
  account_not_found: { status: 404, title: 'No such account' },
  currency_mismatch: { status: 422, title: 'The accounts of a transfer must share one currency' },
  ledger_amount_out_of_range: {
    status: 422,
    title: "The transfer would take an account's debits or credits past 2^53 - 1",
  },

  // Outbox
  dead_letter_not_found: { status: 404, title: 'No such dead letter' },

  // SDK drop-in (docs/compat.md)
  model_not_found: { status: 404, title: 'No such model is configured under compat.models' },
  completion_pending: {
    status: 503,
    title: 'The completion is still being generated; retry with the same Idempotency-Key',
  },
  completion_failed: { status: 502, title: 'Every attempt at this completion failed' },
  completion_cancelled: { status: 409, title: 'The job of this completion was cancelled' },
  completion_purged: { status: 410, title: 'The completion was purged with its archived job' },
  stream_interrupted: {
    status: 502,
    title: 'The attempt a live stream relayed stopped; call again with the same key for the completion',
  },

  // Server side
  database_unavailable: { status: 503, title: 'The database is unavailable; retry later' },
  internal_error: { status: 500, title: 'Internal error' },
  database_newer_than_code: {
    status: 500,
    title: 'The database was migrated by a newer onejob version',
  },
  database_pooler_undeclared: {
    status: 500,
    title: 'A transaction pooler sits in front of the database and database.pooler does not say so',
  },
  database_pooler_migration_refused: {
    status: 500,
    title: 'Migrations cannot run through a transaction pooler; set DATABASE_DIRECT_URL',
  },
} as const satisfies Record<string, ErrorSpec>;

/** Every error code onejob answers with (docs/errors.md). */
export type ErrorCode = keyof typeof errorRegistry;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorRegistry, code);
}
