// When and how long the client waits before sending a request again. Every retried
// job-creating request carries the same idempotency key, which is what makes it safe.

/** What `beforeRetry` is given before each retry is sent. */
export interface RetryInfo {
  /** The retry about to be sent: 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** Why: the HTTP status (429, 502, 503, 504) or 0 for a network error. */
  status: number;
  error: unknown;
  method: string;
  path: string;
}

/**
 * How the client retries a failed request.
 *
 * @example
 * ```ts
 * const client = createClient({
 *   baseUrl: '',
 *   retry: { maxTries: 4, beforeRetry: (info) => console.warn('retrying', info) },
 * });
 * ```
 */
export interface RetryOptions {
  /** Requests sent at most, the first one included. Default 6. */
  maxTries?: number;
  /** Backoff base: the cap doubles from here on every retry. Default 250 ms. */
  baseDelayMs?: number;
  /** Largest backoff cap. Default 10 s. */
  maxDelayMs?: number;
  /** The longest `Retry-After` the client honours; a longer one ends the retries. Default 60 s. */
  maxRetryAfterMs?: number;
  /** Source of randomness for the jitter, in [0, 1). Default Math.random. */
  random?: () => number;
  /** Runs before each retry and is awaited: log it, or hold the retry until something is ready. */
  beforeRetry?: (info: RetryInfo) => void | Promise<void>;
}

export type ResolvedRetry = Required<Omit<RetryOptions, 'beforeRetry'>> & Pick<RetryOptions, 'beforeRetry'>;

export function resolveRetry(options: RetryOptions | false | undefined): ResolvedRetry {
  const o = options === false ? { maxTries: 1 } : (options ?? {});
  return {
    maxTries: Math.max(1, o.maxTries ?? 6),
    baseDelayMs: o.baseDelayMs ?? 250,
    maxDelayMs: o.maxDelayMs ?? 10_000,
    maxRetryAfterMs: o.maxRetryAfterMs ?? 60_000,
    random: o.random ?? Math.random,
    beforeRetry: o.beforeRetry,
  };
}

/**
 * Statuses that say "not done, try again later": 429 and 503 from onejob, and 502/504,
 * which a proxy in front of it answers while the server restarts. A 409 or any other 4xx
 * is an answer, never retried: sending it again would get the same answer.
 */
export const RETRYABLE_STATUSES: readonly number[] = [429, 502, 503, 504];

/**
 * Exponential backoff with full jitter: a uniform delay in [0, min(max, base * 2^(retry-1))),
 * so clients that failed together do not come back together. A server's `Retry-After`
 * is a floor on the delay.
 *
 * @example
 * ```ts
 * const policy = { maxTries: 6, baseDelayMs: 250, maxDelayMs: 10_000, maxRetryAfterMs: 60_000, random: Math.random };
 * const waitMs = backoffDelay(2, policy, parseRetryAfter(response.headers.get('retry-after')));
 * ```
 */
export function backoffDelay(retry: number, policy: ResolvedRetry, retryAfterMs?: number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const jittered = Math.floor(policy.random() * cap);
  return retryAfterMs === undefined ? jittered : Math.max(retryAfterMs, jittered);
}

/**
 * `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable.
 *
 * @example
 * ```ts
 * parseRetryAfter('2'); // 2000
 * parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT'); // milliseconds until then
 * parseRetryAfter(null); // undefined
 * ```
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
