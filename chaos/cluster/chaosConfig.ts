// The onejob configuration a chaos run serves: one exclusive `charge` operation on the
// fake payment provider, two pure inference operations on the fake model providers (with
// hedges, a verified fallback and a fallback that fails verification), short timeouts and
// leases so faults resolve within the run, the NATS cluster as publisher, and a signed
// webhook source.
import type { OnejobConfig, OpenAiProviderConfig, OperationConfig } from '../../src/config/types.js';
import { BACKUP_LLM, PRIMARY_LLM, UNVERIFIED_LLM } from './startFakeInferenceProvider.js';

export const WEBHOOK_SOURCE = 'payments';
export const WEBHOOK_OWNER = 'acme';
export const WEBHOOK_SECRET_ENV = 'CHAOS_WEBHOOK_SECRET';
export const ATTEMPT_TIMEOUT_MS = 1_500;
export const HEDGE_AFTER_MS = 300;
export const GRACE_MS = 1_000;
export const ADMIN_TOKEN_ENV = 'ONEJOB_ADMIN_TOKEN';
/**
 * Pure operations. `summarize` hedges to the verified backup and aborts the loser once a
 * sibling wins; `translate` lets the loser run on (`abortLosers: false`), so its answer
 * arrives and loses the race; `classify` lists the unverified provider first among the
 * fallbacks, so the failover gate decides every hedge and retry of it.
 */
export const INFERENCE_OPERATIONS = {
  summarize: { providers: [PRIMARY_LLM, BACKUP_LLM, UNVERIFIED_LLM], abortLosers: true },
  translate: { providers: [PRIMARY_LLM, BACKUP_LLM], abortLosers: false },
  classify: { providers: [PRIMARY_LLM, UNVERIFIED_LLM, BACKUP_LLM], abortLosers: true },
} as const;

function llm(baseUrl: string, model: string): OpenAiProviderConfig {
  return {
    kind: 'openai-compatible',
    baseUrl,
    model,
    // A known tokenizer: verification checks the prompt, and an aborted call's cost is estimated.
    tokenizer: 'o200k_base',
    contextWindow: 8_192,
    prices: { inputPerMillionMicros: 1_000_000, outputPerMillionMicros: 4_000_000 },
  };
}

function inferenceOperation(o: { providers: readonly string[]; abortLosers: boolean }): OperationConfig {
  return {
    kind: 'inference.chat',
    providers: [...o.providers],
    effect: 'pure',
    abortLosers: o.abortLosers,
    attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    hedgeAfterMs: HEDGE_AFTER_MS,
    maxAttempts: 4,
    retry: { baseDelayMs: 50, maxDelayMs: 500 },
    inputSchema: {
      type: 'object',
      required: ['text'],
      properties: { text: { type: 'string', minLength: 1, maxLength: 200 } },
    },
    prompt: { system: 'Answer in JSON.', user: 'Summarize: {{text}}' },
    outputSchema: {
      type: 'object',
      required: ['summary', 'answerId'],
      properties: { summary: { type: 'string' }, answerId: { type: 'string' } },
    },
    contract: { fixtures: [{ input: { text: 'one job per intent' } }] },
  };
}

export function chaosConfig(o: {
  providerUrl: string;
  natsUrl: string;
  stream: string;
  /** The fake model providers' base URL per provider name; no inference operations without it. */
  inferenceBaseUrl?: (provider: string) => string;
}): OnejobConfig {
  const inference = o.inferenceBaseUrl;
  return {
    providers: {
      pay: {
        kind: 'http',
        url: `${o.providerUrl}/charge`,
        idempotent: true,
        statusUrl: `${o.providerUrl}/charge/{key}`,
      },
      ...(inference
        ? Object.fromEntries(
            [PRIMARY_LLM, BACKUP_LLM, UNVERIFIED_LLM].map((name) => [
              name,
              llm(inference(name), `${name}-model`),
            ]),
          )
        : {}),
    },
    operations: {
      ...(inference
        ? Object.fromEntries(
            Object.entries(INFERENCE_OPERATIONS).map(([name, op]) => [name, inferenceOperation(op)]),
          )
        : {}),
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
    worker: { leaseMs: 2_000, pollMs: 100, graceMs: GRACE_MS },
  } as OnejobConfig;
}
