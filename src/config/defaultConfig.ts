import type { OnejobConfig } from './types.js';

/**
 * What `onejob serve` runs with when no config file is given: simulated providers only,
 * so the quick start needs no network and no API keys, and the log publisher. The compat
 * model `gpt-4o-mini` answers the README's SDK example offline, in either SDK's format.
 */
export const defaultConfig: OnejobConfig = {
  providers: {
    'sim-pay': { kind: 'simulated', latencyMs: 50, prices: { perCallMicros: 300_000, currency: 'USD' } },
    'sim-a': { kind: 'simulated', latencyMs: 200 },
    'sim-b': { kind: 'simulated', latencyMs: 100 },
    // gpt-4o-mini's list prices, so a simulated completion's cost shows in the ledger.
    'sim-chat': {
      kind: 'simulated',
      latencyMs: 200,
      prices: { inputPerMillionMicros: 150_000, outputPerMillionMicros: 600_000, currency: 'USD' },
    },
  },
  operations: {
    charge: {
      kind: 'http',
      providers: ['sim-pay'],
      effect: 'exclusive',
      attemptTimeoutMs: 10_000,
      maxAttempts: 3,
      inputSchema: {
        type: 'object',
        required: ['amount'],
        additionalProperties: true,
        properties: {
          amount: { type: 'integer', minimum: 1 },
          currency: { type: 'string', pattern: '^[A-Z]{3}$' },
        },
      },
    },
    summarize: {
      kind: 'inference.chat',
      providers: ['sim-a', 'sim-b'],
      effect: 'pure',
      attemptTimeoutMs: 30_000,
      hedgeAfterMs: 2_000,
      maxAttempts: 3,
      inputSchema: {
        type: 'object',
        required: ['text'],
        properties: { text: { type: 'string', minLength: 1, maxLength: 100_000 } },
      },
      prompt: {
        system: 'You summarise text. Answer with JSON only: {"summary": string}.',
        user: 'Summarize: {{text}}',
      },
      outputSchema: {
        type: 'object',
        required: ['summary'],
        additionalProperties: false,
        properties: { summary: { type: 'string' } },
      },
      contract: {
        fixtures: [{ input: { text: 'The quick brown fox jumps over the lazy dog.' } }],
        temperature: 0,
      },
    },
  },
  outbox: { publishers: [{ kind: 'log' }] },
  compat: { models: { 'gpt-4o-mini': { providers: ['sim-chat'] } } },
};
