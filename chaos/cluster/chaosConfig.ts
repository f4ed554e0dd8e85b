// The onejob configuration a chaos run serves: one exclusive `charge` operation on the
// fake payment provider, short timeouts and leases so faults resolve within the run, the
// NATS cluster as publisher, and a signed webhook source.
import type { OnejobConfig } from '../../src/config/types.js';

export const WEBHOOK_SOURCE = 'payments';
export const WEBHOOK_OWNER = 'acme';
export const WEBHOOK_SECRET_ENV = 'CHAOS_WEBHOOK_SECRET';
export const ATTEMPT_TIMEOUT_MS = 1_500;

export function chaosConfig(o: { providerUrl: string; natsUrl: string; stream: string }): OnejobConfig {
  return {
    providers: {
      pay: {
        kind: 'http',
        url: `${o.providerUrl}/charge`,
        idempotent: true,
        statusUrl: `${o.providerUrl}/charge/{key}`,
      },
    },
    operations: {
      charge: {
        kind: 'http',
        providers: ['pay'],
        effect: 'exclusive',
        attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
        maxAttempts: 3,
        inputSchema: {
          type: 'object',
          required: ['amount'],
          properties: { amount: { type: 'integer', minimum: 1 } },
        },
      },
    },
    outbox: { publishers: [{ kind: 'nats', url: o.natsUrl, stream: o.stream }] },
    inbox: {
      sources: {
        [WEBHOOK_SOURCE]: {
          scheme: 'standard-webhooks',
          secretEnv: WEBHOOK_SECRET_ENV,
          eventId: 'header:webhook-id',
          operation: 'charge',
          ownerId: WEBHOOK_OWNER,
        },
      },
    },
    worker: { leaseMs: 2_000, pollMs: 100, graceMs: 1_000 },
  } as OnejobConfig;
}
