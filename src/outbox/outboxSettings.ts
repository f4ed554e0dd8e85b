import type { OutboxConfig, PublisherRetryConfig } from '../config/types.js';

/** The outbox options with their defaults filled in (docs/outbox.md explains each). */
export interface OutboxSettings {
  batchSize: number;
  pollMs: number;
  retentionHours: number;
  cleanupIntervalMs: number;
  maxDeliveries: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export const OUTBOX_DEFAULTS: OutboxSettings = {
  // Large enough that a batch keeps the publisher's window (256 in flight) full while
  // the other pass commits.
  batchSize: 500,
  // Writers wake relays after commit; the poll covers the wake-ups that never come (a
  // write inside a caller's transaction, a lost notification) and retries coming due.
  pollMs: 200,
  // A week: far longer than JetStream's 2-minute duplicate window or a typical consumer
  // inbox retention, so the outbox still holds every id a consumer may ask about.
  retentionHours: 168,
  cleanupIntervalMs: 3_600_000,
  maxDeliveries: 10,
  retryBaseMs: 1_000,
  retryMaxMs: 300_000,
};

export function outboxSettings(config: OutboxConfig | undefined): OutboxSettings {
  const c = config ?? {};
  return {
    batchSize: c.batchSize ?? OUTBOX_DEFAULTS.batchSize,
    pollMs: c.pollMs ?? OUTBOX_DEFAULTS.pollMs,
    retentionHours: c.retentionHours ?? OUTBOX_DEFAULTS.retentionHours,
    cleanupIntervalMs: c.cleanupIntervalMs ?? OUTBOX_DEFAULTS.cleanupIntervalMs,
    maxDeliveries: c.maxDeliveries ?? OUTBOX_DEFAULTS.maxDeliveries,
    retryBaseMs: c.retryBaseMs ?? OUTBOX_DEFAULTS.retryBaseMs,
    retryMaxMs: c.retryMaxMs ?? OUTBOX_DEFAULTS.retryMaxMs,
  };
}

/** Retry policy of one publisher: its own options, else the outbox-wide ones. */
export interface RetryPolicy {
  maxDeliveries: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export function retryPolicy(settings: OutboxSettings, own: PublisherRetryConfig = {}): RetryPolicy {
  return {
    maxDeliveries: own.maxDeliveries ?? settings.maxDeliveries,
    retryBaseMs: own.retryBaseMs ?? settings.retryBaseMs,
    retryMaxMs: own.retryMaxMs ?? settings.retryMaxMs,
  };
}

/**
 * Delay before the next try after `failures` refused tries: exponential from
 * `retryBaseMs`, capped at `retryMaxMs`, with up to 20% jitter so a burst of failures
 * does not retry in lockstep.
 */
export function retryDelayMs(policy: RetryPolicy, failures: number, random = Math.random): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  const base = Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** exponent);
  return Math.round(base * (1 + 0.2 * random()));
}
