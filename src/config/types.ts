// The shape of the JSON configuration file. docs/configuration.md describes each field.

export type JsonSchema = Record<string, unknown>;

export interface Prices {
  /** Cost per million input tokens, in micro-units of `currency` (1 USD = 1,000,000). */
  inputPerMillionMicros?: number;
  outputPerMillionMicros?: number;
  /** Flat cost per call, in micro-units. */
  perCallMicros?: number;
  currency?: string;
}

export interface HttpProviderConfig {
  kind: 'http';
  url: string;
  /** The provider dedupes on Idempotency-Key, so re-sending the same request is safe. */
  idempotent?: boolean;
  /** URL template with `{key}`: asks the provider what happened to a request. */
  statusUrl?: string;
  headers?: Record<string, string>;
  prices?: Prices;
}

export interface OpenAiProviderConfig {
  kind: 'openai-compatible';
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
  contextWindow?: number;
  tokenizer?: string;
  waiveTokenizerCheck?: boolean;
  prices?: Prices;
}

export interface AnthropicProviderConfig {
  kind: 'anthropic';
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
  contextWindow?: number;
  tokenizer?: string;
  waiveTokenizerCheck?: boolean;
  maxTokens?: number;
  prices?: Prices;
}

export interface SimulatedStep {
  latencyMs?: number;
  outcome?: 'success' | 'failure' | 'timeout' | 'error';
  output?: unknown;
}

export interface SimulatedProviderConfig {
  kind: 'simulated';
  latencyMs?: number;
  /** Steps played in order, one per call, the last one repeating. */
  script?: SimulatedStep[];
  prices?: Prices;
}

/** One entry of `providers` in the configuration, by `kind`. */
export type ProviderConfig =
  | HttpProviderConfig
  | OpenAiProviderConfig
  | AnthropicProviderConfig
  | SimulatedProviderConfig;

export type Effect = 'exclusive' | 'pure';

/** One entry of `operations` in the configuration. */
export interface OperationConfig {
  kind: 'http' | 'inference.chat';
  providers: string[];
  effect?: Effect;
  attemptTimeoutMs?: number;
  hedgeAfterMs?: number;
  /** Pure operations: abort sibling calls still open once an attempt wins (default true). */
  abortLosers?: boolean;
  maxAttempts?: number;
  retry?: { baseDelayMs?: number; maxDelayMs?: number };
  inputSchema?: JsonSchema;
  prompt?: { system?: string; user: string };
  outputSchema?: JsonSchema;
  rules?: unknown[];
  contract?: { fixtures?: { input: Record<string, unknown> }[]; temperature?: number };
}

/** Retry options of the outbox; a publisher may override each of them. */
export interface PublisherRetryConfig {
  /** Refused tries before the event becomes a dead letter for this publisher. */
  maxDeliveries?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
}

interface PublisherBase extends PublisherRetryConfig {
  /** Unique among publishers; defaults to the kind. Delivery progress is tracked under it. */
  name?: string;
}

export interface NatsPublisherConfig extends PublisherBase {
  kind: 'nats';
  url: string;
  stream?: string;
  subjectPrefix?: string;
  subjects?: string[];
  duplicateWindowMs?: number;
  timeoutMs?: number;
  concurrency?: number;
}

export interface RabbitPublisherConfig extends PublisherBase {
  kind: 'rabbitmq';
  url: string;
  exchange?: string;
  exchangeType?: 'topic' | 'direct' | 'fanout' | 'headers';
  timeoutMs?: number;
  concurrency?: number;
}

export interface WebhookPublisherConfig extends PublisherBase {
  kind: 'webhook';
  url: string;
  secretEnv: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  concurrency?: number;
}

export interface LogPublisherConfig extends PublisherBase {
  kind: 'log';
}

export type PublisherConfig =
  | NatsPublisherConfig
  | RabbitPublisherConfig
  | WebhookPublisherConfig
  | LogPublisherConfig;

export interface OutboxConfig extends PublisherRetryConfig {
  publishers?: PublisherConfig[];
  /** Hours a fully published event is kept before cleanup. */
  retentionHours?: number;
  batchSize?: number;
  pollMs?: number;
  cleanupIntervalMs?: number;
}

export interface InboxSourceConfig {
  scheme: string;
  secretEnv: string;
  /** `header:NAME` or `json:/pointer`; unset: the scheme's default. */
  eventId?: string;
  operation: string;
  ownerId: string;
  toleranceSeconds?: number;
  allowSha1?: boolean;
  unsignedEventId?: boolean;
}

/** Group commit of `jobs.create` and `POST /v1/jobs` (docs/configuration.md). */
export interface IntakeConfig {
  maxBatchSize?: number;
  maxBatchWaitMs?: number;
  maxBatchesInFlight?: number;
}

/**
 * The configuration: the JSON config file's shape, and `createOnejob({ config })`
 * (docs/configuration.md; complete files in examples/config/).
 *
 * @example
 * ```ts
 * const config: OnejobConfig = {
 *   providers: { pay: { kind: 'http', url: 'https://payments.example/charge', idempotent: true } },
 *   operations: { charge: { kind: 'http', providers: ['pay'], attemptTimeoutMs: 10_000 } },
 * };
 * ```
 */
export interface OnejobConfig {
  providers: Record<string, ProviderConfig>;
  operations: Record<string, OperationConfig>;
  outbox?: OutboxConfig;
  intake?: IntakeConfig;
  inbox?: { sources?: Record<string, InboxSourceConfig> };
  worker?: { concurrency?: number; leaseMs?: number; pollMs?: number; [option: string]: unknown };
}
