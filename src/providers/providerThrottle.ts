// A provider that answers 429 or 503 with Retry-After says it did nothing and when to come
// back: the attempt is a definite failure (`provider_throttled`), never unknown, and the
// provider is paused for every worker until then (docs/attempts.md, "Provider pauses").
// Without Retry-After the status keeps its usual meaning: 429 and 5xx are ambiguous.
import type { AttemptError, ProviderOutcome } from './types.js';

export const PROVIDER_THROTTLED = 'provider_throttled';

/** Statuses whose Retry-After pauses the provider. */
const THROTTLE_STATUSES = new Set([429, 503]);

/**
 * `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date (RFC 9110
 * section 10.2.3); undefined when absent or unreadable. A date in the past is 0.
 */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Only the HTTP-date shapes, so a stray number with letters is not read as a date.
  if (!/^[A-Za-z]{3},? /.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The error of a throttled attempt: what the provider said and until when it is paused. */
export interface ThrottleError extends AttemptError {
  code: typeof PROVIDER_THROTTLED;
  status: number;
  retryAfter: string;
  pausedUntil: string;
}

/**
 * The outcome of a 429 or 503 that carries a readable Retry-After; undefined otherwise,
 * and the answer is classified as before.
 */
export function throttledOutcome(
  status: number,
  retryAfter: string | null | undefined,
  now = Date.now(),
): ProviderOutcome | undefined {
  if (!THROTTLE_STATUSES.has(status)) return undefined;
  const ms = retryAfterMs(retryAfter, now);
  if (ms === undefined || retryAfter == null) return undefined;
  const pausedUntil = new Date(now + ms).toISOString();
  const error: ThrottleError = {
    code: PROVIDER_THROTTLED,
    message: `provider answered HTTP ${status} with Retry-After: ${retryAfter.trim()}; paused until ${pausedUntil}`,
    status,
    retryAfter: retryAfter.trim(),
    pausedUntil,
  };
  return { kind: 'failure', error };
}

/** The pause a failure asks for, if it is a throttle. */
export function pauseOf(outcome: ProviderOutcome): { until: Date; status: number } | undefined {
  if (outcome.kind !== 'failure' || outcome.error.code !== PROVIDER_THROTTLED) return undefined;
  const until = new Date(String(outcome.error.pausedUntil));
  if (Number.isNaN(until.getTime())) return undefined;
  return { until, status: Number(outcome.error.status) };
}
