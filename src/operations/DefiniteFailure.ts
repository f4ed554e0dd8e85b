// Thrown by an operation's `run` to say the attempt provably did not take effect, so the
// engine may retry it, or, with `retryable: false`, that no retry can do better (the job
// fails at once). Any other error is an unknown outcome for exclusive operations.

const BRAND = Symbol.for('onejob.DefiniteFailure');

/** The second argument of `new DefiniteFailure(message, options)`. */
export interface DefiniteFailureOptions {
  /** Stable machine code stored on the attempt, for example `card_declined`. Default `definite_failure`. */
  code?: string;
  /** Extra fields stored with the attempt's error. */
  details?: Record<string, unknown>;
  /**
   * `false`: retrying cannot succeed (an invalid address, a declined card), so the job ends
   * `failed` at once with `error.finalBy: "retryable_false"`. A `pure` operation may still
   * fail over to another verified provider (docs/attempts.md). Default `true`.
   */
  retryable?: boolean;
  cause?: unknown;
}

/**
 * Thrown from a code operation's `run` when the work is proven not done (a declined card,
 * an invalid address): the attempt fails definitely and the engine may retry or fail over;
 * with `retryable: false` the job ends `failed` without retrying.
 * Any other error thrown by an `exclusive` operation leaves the attempt `unknown`.
 *
 * @example
 * ```ts
 * if (response.status === 503) throw new DefiniteFailure('provider refused the call', { code: 'unavailable' });
 * if (response.status === 402) throw new DefiniteFailure('card declined', { code: 'card_declined', retryable: false });
 * ```
 */
export class DefiniteFailure extends Error {
  readonly code: string;
  readonly details: Record<string, unknown> | undefined;
  /** False when no retry can succeed: the job fails at once. */
  readonly retryable: boolean;

  constructor(message: string, options: DefiniteFailureOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DefiniteFailure';
    this.code = options.code ?? 'definite_failure';
    this.details = options.details;
    this.retryable = options.retryable !== false;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/**
 * True for a DefiniteFailure, also one thrown by another copy of this package.
 *
 * @example
 * ```ts
 * if (isDefiniteFailure(error)) console.log(error.code); // works across copies of the onejob package
 * ```
 */
export function isDefiniteFailure(error: unknown): error is DefiniteFailure {
  return error instanceof DefiniteFailure || (typeof error === 'object' && error !== null && BRAND in error);
}
