import { type ErrorCode, errorRegistry } from './errorRegistry.js';

/**
 * The one error type the library and the HTTP layer throw on purpose. `code` is stable
 * and documented; `detail` explains this occurrence; `extra` adds fields to the
 * problem document (for example the existing job id on a conflict).
 *
 * @example
 * ```ts
 * throw new OnejobError('signature_invalid', 'The webhook-signature header does not match the body.');
 * ```
 */
export class OnejobError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly extra: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, detail?: string, extra?: Record<string, unknown>) {
    const spec = errorRegistry[code];
    super(detail ?? spec.title);
    this.name = 'OnejobError';
    this.code = code;
    this.status = spec.status;
    this.title = spec.title;
    this.detail = detail ?? spec.title;
    this.extra = extra;
  }
}

/**
 * True when `error` is an `OnejobError`, and has `code` when one is given.
 *
 * @example
 * ```ts
 * try {
 *   await onejob.jobs.create(request);
 * } catch (error) {
 *   if (isOnejobError(error, 'idempotency_key_reused')) return reply.status(409).send();
 *   throw error;
 * }
 * ```
 */
export function isOnejobError(error: unknown, code?: ErrorCode): error is OnejobError {
  return error instanceof OnejobError && (code === undefined || error.code === code);
}
