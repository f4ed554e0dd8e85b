import type { Problem } from './types.js';

/**
 * Codes the client itself produces, beside the server's problem codes (docs/errors.md):
 * `network_error` (no response: connection refused or reset, or the per-try timeout),
 * `unexpected_response` (a response that is not the JSON the API promises).
 */
export type ClientErrorCode = 'network_error' | 'unexpected_response';

/**
 * Every failure of a client call: branch on `code`, which is stable.
 *
 * @example
 * ```ts
 * try {
 *   await client.jobs.get(id);
 * } catch (error) {
 *   if (error instanceof OnejobClientError && error.code === 'job_not_found') return null;
 *   throw error;
 * }
 * ```
 */
export class OnejobClientError extends Error {
  /** The problem `code` from the server, or a client code (`network_error`, `unexpected_response`). */
  readonly code: string;
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  readonly detail: string;
  /** The whole problem document (extra fields such as `jobId` on `idempotency_key_reused`). */
  readonly problem: Problem | undefined;
  /** How many requests were sent before giving up. */
  readonly tries: number;

  constructor(init: {
    code: string;
    status: number;
    detail: string;
    problem?: Problem;
    tries?: number;
    cause?: unknown;
  }) {
    super(`${init.code}${init.status ? ` (${init.status})` : ''}: ${init.detail}`, { cause: init.cause });
    this.name = 'OnejobClientError';
    this.code = init.code;
    this.status = init.status;
    this.detail = init.detail;
    this.problem = init.problem;
    this.tries = init.tries ?? 1;
  }
}

/**
 * True when `error` is an `OnejobClientError`, and has `code` when one is given.
 *
 * @example
 * ```ts
 * try {
 *   await client.jobs.create('charge', { amount: 1999 }, { idempotencyKey: key });
 * } catch (error) {
 *   if (isOnejobClientError(error, 'idempotency_key_reused')) showConflict();
 *   else throw error;
 * }
 * ```
 */
export function isOnejobClientError(error: unknown, code?: string): error is OnejobClientError {
  return error instanceof OnejobClientError && (code === undefined || error.code === code);
}
