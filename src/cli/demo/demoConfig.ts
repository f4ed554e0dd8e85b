import { defaultConfig } from '../../config/defaultConfig.js';
import type { OnejobConfig } from '../../config/types.js';

/** The environment variable that holds the demo webhook source's signing secret. */
export const DEMO_SECRET_ENV = 'ONEJOB_DEMO_WEBHOOK_SECRET';

/**
 * The built-in config plus the simulated misbehaviour the full demo needs: a provider that
 * never answers (timeouts), a slow primary and a fast fallback (a race), and a signed
 * webhook source. `onejob demo --write-config FILE` writes it.
 */
export const demoConfig: OnejobConfig = {
  ...defaultConfig,
  providers: {
    ...defaultConfig.providers,
    'sim-silent': { kind: 'simulated', script: [{ outcome: 'timeout' }] },
    'sim-slow': { kind: 'simulated', latencyMs: 1500 },
    'sim-quick': { kind: 'simulated', latencyMs: 100 },
  },
  operations: {
    ...defaultConfig.operations,
    'demo-timeout': {
      kind: 'http',
      // sim-quick is the fallback the scene switches to once the unknown attempt is abandoned.
      providers: ['sim-silent', 'sim-quick'],
      effect: 'exclusive',
      attemptTimeoutMs: 1000,
      maxAttempts: 3,
      inputSchema: {
        type: 'object',
        required: ['amount'],
        properties: { amount: { type: 'integer', minimum: 1 } },
      },
      contract: { fixtures: [{ input: { amount: 1 } }] },
    },
    'demo-race': {
      kind: 'http',
      providers: ['sim-slow', 'sim-quick'],
      effect: 'pure',
      attemptTimeoutMs: 5000,
      hedgeAfterMs: 300,
      maxAttempts: 3,
      // Verification sends this input to the fallback once, so `sim-quick` can be verified.
      contract: { fixtures: [{ input: { text: 'verification' } }] },
    },
  },
  inbox: {
    sources: {
      'demo-payments': {
        scheme: 'standard-webhooks',
        secretEnv: DEMO_SECRET_ENV,
        eventId: 'header:webhook-id',
        operation: 'charge',
        ownerId: 'dev',
      },
    },
  },
};
