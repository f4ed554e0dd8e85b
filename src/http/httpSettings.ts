import type { HttpConfig, LimitsConfig } from '../config/types.js';

/** The HTTP server's timeouts and bounds when the config's `http` section leaves them out. */
export const HTTP_DEFAULTS = {
  // Node's own defaults (5 minutes for a request, none for a trickled body between
  // checks) let one slow socket hold a connection for minutes; 30 s is ample for a
  // 1 MiB body on any real link.
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 30_000,
  // Longer than the idle timeout of common load balancers (60 s), so the server is never
  // the side that closes a connection the balancer is about to reuse.
  keepAliveTimeoutMs: 72_000,
  maxWaitsPerOwner: 100,
  // A page is serialised on the event loop every other owner shares: a megabyte at a time
  // keeps each such stretch short.
  maxListBytes: 1024 * 1024,
  // Pages of GET /v1/jobs one owner may have in flight at once: past it, 429 at once.
  maxListsPerOwner: 4,
} as const satisfies Required<HttpConfig>;

/**
 * Per-owner token buckets when the config's `limits` section leaves them out: far above
 * what one tenant's real traffic reaches, so they only ever stop a runaway client.
 */
export const LIMIT_DEFAULTS = {
  enabled: true,
  requestsPerSecond: 1000,
  requestBurst: 5000,
  jobsPerSecond: 200,
  jobBurst: 2000,
  authFailuresPerSecond: 1,
  authFailureBurst: 30,
  authFailureThrottle: true,
} as const satisfies Required<LimitsConfig>;

export type HttpSettings = { -readonly [K in keyof typeof HTTP_DEFAULTS]: number };
type Switches = 'enabled' | 'authFailureThrottle';
export type LimitSettings = { [K in Switches]: boolean } & Omit<
  { -readonly [K in keyof typeof LIMIT_DEFAULTS]: number },
  Switches
>;

export function httpSettings(config: HttpConfig | undefined): HttpSettings {
  return { ...HTTP_DEFAULTS, ...config };
}

export function limitSettings(config: LimitsConfig | undefined): LimitSettings {
  return { ...LIMIT_DEFAULTS, ...config };
}
