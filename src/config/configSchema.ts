// JSON Schema of the configuration file. Unknown keys are errors everywhere, so a typo
// refuses to start instead of being ignored. Provider kinds use a discriminator so the
// error names the key that is wrong for that kind.
//
// Every part is `as const`, so src/config/types.ts derives the TypeScript types from
// these very objects: the schema is the only description of the config's shape.

import { outputRuleSchema } from './outputRuleSchema.js';

const prices = {
  type: 'object',
  additionalProperties: false,
  properties: {
    inputPerMillionMicros: { type: 'number', minimum: 0 },
    outputPerMillionMicros: { type: 'number', minimum: 0 },
    perCallMicros: { type: 'number', minimum: 0 },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
  },
} as const;

const url = { type: 'string', pattern: '^https?://' } as const;
// Calls in flight to the provider at once, across every worker process on the database.
const maxConcurrency = { type: 'integer', minimum: 1, maximum: 10_000 } as const;
const envName = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } as const;

const llmProvider = <const K extends string, const E extends Record<string, unknown>>(kind: K, extra: E) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'baseUrl', 'model'],
    properties: {
      kind: { const: kind },
      baseUrl: url,
      model: { type: 'string', minLength: 1 },
      apiKeyEnv: envName,
      contextWindow: { type: 'integer', minimum: 1 },
      tokenizer: { type: 'string', minLength: 1 },
      waiveTokenizerCheck: { type: 'boolean' },
      prices,
      maxConcurrency,
      ...extra,
    },
  }) as const;

export const providerSchema = {
  type: 'object',
  required: ['kind'],
  discriminator: { propertyName: 'kind' },
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'url'],
      properties: {
        kind: { const: 'http' },
        url,
        idempotent: { type: 'boolean' },
        statusUrl: url,
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        prices,
        maxConcurrency,
      },
    },
    llmProvider('openai-compatible', {}),
    llmProvider('anthropic', { maxTokens: { type: 'integer', minimum: 1 } }),
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind'],
      properties: {
        kind: { const: 'simulated' },
        latencyMs: { type: 'integer', minimum: 0 },
        script: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            properties: {
              latencyMs: { type: 'integer', minimum: 0 },
              outcome: { enum: ['success', 'failure', 'timeout', 'error'] },
              output: {},
            },
          },
        },
        prices,
        maxConcurrency,
      },
    },
  ],
} as const;

export const operationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'providers'],
  properties: {
    kind: { enum: ['http', 'inference.chat'] },
    providers: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } },
    effect: { enum: ['exclusive', 'pure'] },
    attemptTimeoutMs: { type: 'integer', minimum: 1, maximum: 86_400_000 },
    hedgeAfterMs: { type: 'integer', minimum: 1 },
    abortLosers: { type: 'boolean' },
    maxAttempts: { type: 'integer', minimum: 1, maximum: 100 },
    // Answers of an `http` provider that no retry can turn around (a declined card, an
    // unknown account): the job fails at once. Only definite 4xx answers qualify; the
    // ambiguous ones (408, 409, 425, 429) may have been acted on and stay unknown.
    permanentStatuses: {
      type: 'array',
      uniqueItems: true,
      items: { type: 'integer', minimum: 400, maximum: 499, not: { enum: [408, 409, 425, 429] } },
    },
    retry: {
      type: 'object',
      additionalProperties: false,
      properties: {
        baseDelayMs: { type: 'integer', minimum: 0 },
        maxDelayMs: { type: 'integer', minimum: 0 },
      },
    },
    inputSchema: { type: 'object' },
    prompt: {
      type: 'object',
      additionalProperties: false,
      required: ['user'],
      properties: { system: { type: 'string' }, user: { type: 'string', minLength: 1 } },
    },
    outputSchema: { type: 'object' },
    rules: { type: 'array', items: outputRuleSchema },
    contract: {
      type: 'object',
      additionalProperties: false,
      properties: {
        fixtures: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['input'],
            properties: { input: { type: 'object' } },
          },
        },
        temperature: { type: 'number', minimum: 0, maximum: 2 },
      },
    },
  },
} as const;

// A model name the SDK drop-in endpoints accept (docs/compat.md): an operation in disguise,
// whose job input is the normalised chat request. Model names may hold `/` and `:`
// (`openai/gpt-4o`), so they have a pattern of their own.
export const compatModelSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['providers'],
  properties: {
    providers: operationSchema.properties.providers,
    effect: operationSchema.properties.effect,
    attemptTimeoutMs: operationSchema.properties.attemptTimeoutMs,
    hedgeAfterMs: operationSchema.properties.hedgeAfterMs,
    maxAttempts: operationSchema.properties.maxAttempts,
    // The most output a call may bill for when the request sets no max_tokens: what a
    // budget holds for it (docs/budgets.md).
    maxOutputTokens: { type: 'integer', minimum: 1 },
    contract: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ...operationSchema.properties.contract.properties,
        outputSchema: { type: 'object' },
        rules: { type: 'array', items: outputRuleSchema },
      },
    },
  },
} as const;

// Options every publisher may override; the same keys under `outbox` set the defaults.
const publisherRetry = {
  maxDeliveries: { type: 'integer', minimum: 1 },
  retryBaseMs: { type: 'integer', minimum: 1 },
  retryMaxMs: { type: 'integer', minimum: 1 },
} as const;

const publisher = <
  const K extends string,
  const R extends readonly string[],
  const E extends Record<string, unknown>,
>(
  kind: K,
  required: R,
  extra: E,
) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['kind', ...required],
    properties: {
      kind: { const: kind },
      name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
      ...publisherRetry,
      ...extra,
    },
  }) as const;

const brokerLimits = {
  timeoutMs: { type: 'integer', minimum: 1 },
  concurrency: { type: 'integer', minimum: 1, maximum: 10_000 },
} as const;

export const publisherSchema = {
  type: 'object',
  required: ['kind'],
  discriminator: { propertyName: 'kind' },
  oneOf: [
    publisher('nats', ['url'], {
      url: { type: 'string', pattern: '^(nats|tls|ws|wss)://' },
      stream: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,255}$' },
      subjectPrefix: { type: 'string', pattern: '^([A-Za-z0-9_-]+\\.)*$' },
      subjects: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      duplicateWindowMs: { type: 'integer', minimum: 1 },
      ...brokerLimits,
    }),
    publisher('rabbitmq', ['url'], {
      url: { type: 'string', pattern: '^amqps?://' },
      exchange: { type: 'string', minLength: 1 },
      exchangeType: { enum: ['topic', 'direct', 'fanout', 'headers'] },
      ...brokerLimits,
    }),
    publisher('webhook', ['url', 'secretEnv'], {
      url,
      secretEnv: envName,
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      ...brokerLimits,
    }),
    publisher('log', [], { output: { enum: ['logger', 'stdout'] } }),
  ],
} as const;

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['providers', 'operations'],
  properties: {
    $schema: { type: 'string' },
    providers: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
      additionalProperties: providerSchema,
    },
    operations: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
      additionalProperties: operationSchema,
    },
    outbox: {
      type: 'object',
      additionalProperties: false,
      properties: {
        publishers: { type: 'array', items: publisherSchema },
        ...publisherRetry,
        retentionHours: { type: 'number', minimum: 0 },
        batchSize: { type: 'integer', minimum: 1, maximum: 10_000 },
        pollMs: { type: 'integer', minimum: 10 },
        cleanupIntervalMs: { type: 'integer', minimum: 1000 },
      },
    },
    intake: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxBatchSize: { type: 'integer', minimum: 1, maximum: 1000 },
        maxBatchWaitMs: { type: 'number', minimum: 0, maximum: 100 },
        maxBatchesInFlight: { type: 'integer', minimum: 1, maximum: 100 },
      },
    },
    inbox: {
      type: 'object',
      additionalProperties: false,
      properties: {
        sources: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            additionalProperties: false,
            required: ['scheme', 'secretEnv', 'operation', 'ownerId'],
            properties: {
              scheme: { type: 'string', minLength: 1 },
              secretEnv: envName,
              eventId: { type: 'string', pattern: '^(header:[A-Za-z0-9-]+|json:/.*)$' },
              operation: { type: 'string', minLength: 1 },
              ownerId: { type: 'string', minLength: 1 },
              toleranceSeconds: { type: 'integer', minimum: 1 },
              allowSha1: { type: 'boolean' },
              unsignedEventId: { type: 'boolean' },
            },
          },
        },
      },
    },
    http: {
      type: 'object',
      additionalProperties: false,
      properties: {
        requestTimeoutMs: { type: 'integer', minimum: 100, maximum: 3_600_000 },
        headersTimeoutMs: { type: 'integer', minimum: 100, maximum: 3_600_000 },
        keepAliveTimeoutMs: { type: 'integer', minimum: 100, maximum: 3_600_000 },
        maxWaitsPerOwner: { type: 'integer', minimum: 1, maximum: 100_000 },
        maxListBytes: { type: 'integer', minimum: 65_536, maximum: 1_073_741_824 },
        maxListsPerOwner: { type: 'integer', minimum: 1, maximum: 100_000 },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean' },
        requestsPerSecond: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 },
        requestBurst: { type: 'integer', minimum: 1, maximum: 10_000_000 },
        jobsPerSecond: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 },
        jobBurst: { type: 'integer', minimum: 1, maximum: 10_000_000 },
        authFailuresPerSecond: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 },
        authFailureBurst: { type: 'integer', minimum: 1, maximum: 10_000_000 },
        // Apart from `enabled`: a deployment that drops per-owner limits for throughput
        // still throttles token guessing unless it says so here.
        authFailureThrottle: { type: 'boolean' },
      },
    },
    database: {
      type: 'object',
      additionalProperties: false,
      properties: {
        pooler: { enum: ['none', 'session', 'transaction'] },
        pollMs: { type: 'integer', minimum: 100, maximum: 60_000 },
      },
    },
    compat: {
      type: 'object',
      additionalProperties: false,
      properties: {
        waitMs: { type: 'integer', minimum: 0, maximum: 3_600_000 },
        maxWaitMs: { type: 'integer', minimum: 0, maximum: 3_600_000 },
        models: {
          type: 'object',
          propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$' },
          additionalProperties: compatModelSchema,
        },
      },
    },
    worker: {
      type: 'object',
      additionalProperties: false,
      properties: {
        concurrency: { type: 'integer', minimum: 1, maximum: 1000 },
        leaseMs: { type: 'integer', minimum: 100 },
        pollMs: { type: 'integer', minimum: 10 },
        graceMs: { type: 'integer', minimum: 0 },
        // Live attempts one owner may have at once across every worker process.
        maxSlotsPerOwner: { type: 'integer', minimum: 1 },
      },
    },
  },
} as const;
