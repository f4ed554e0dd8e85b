// The onejob configuration the bench server runs: one operation on a provider that
// answers at once, so the numbers measure onejob and PostgreSQL, not a provider.
import type { IntakeConfig, OnejobConfig, PublisherConfig } from '../src/config/types.js';

export function benchConfig(o: {
  workerConcurrency: number;
  publisher?: PublisherConfig;
  intake?: IntakeConfig;
  /** The no-op provider has a per-call price: each attempt takes a hold before its call. */
  priced?: boolean;
}): OnejobConfig {
  return {
    ...(o.intake && Object.keys(o.intake).length ? { intake: o.intake } : {}),
    providers: {
      noop: { kind: 'simulated', latencyMs: 0, ...(o.priced ? { prices: { perCallMicros: 1 } } : {}) },
    },
    operations: {
      noop: {
        kind: 'http',
        providers: ['noop'],
        effect: 'exclusive',
        attemptTimeoutMs: 10_000,
        maxAttempts: 3,
        inputSchema: {
          type: 'object',
          required: ['amount'],
          properties: { amount: { type: 'integer', minimum: 1 }, note: { type: 'string' } },
        },
      },
    },
    outbox: { publishers: [o.publisher ?? { kind: 'log' }] },
    worker: { concurrency: o.workerConcurrency },
    // The bench is one owner at full speed: the per-owner buckets would measure themselves.
    limits: { enabled: false },
    http: { maxWaitsPerOwner: 100_000 },
  };
}
