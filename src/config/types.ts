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

export type ProviderConfig =
  | HttpProviderConfig
  | OpenAiProviderConfig
  | AnthropicProviderConfig
  | SimulatedProviderConfig;

export type Effect = 'exclusive' | 'pure';

export interface OperationConfig {
  kind: 'http' | 'inference.chat';
  providers: string[];
  effect?: Effect;
  attemptTimeoutMs?: number;
  hedgeAfterMs?: number;
  maxAttempts?: number;
  retry?: { baseDelayMs?: number; maxDelayMs?: number };
  inputSchema?: JsonSchema;
  prompt?: { system?: string; user: string };
  outputSchema?: JsonSchema;
  rules?: unknown[];
  contract?: { fixtures?: { input: Record<string, unknown> }[]; temperature?: number };
}

export interface PublisherConfig {
  kind: 'nats' | 'rabbitmq' | 'webhook' | 'log';
  name?: string;
  [option: string]: unknown;
}

export interface InboxSourceConfig {
  scheme: string;
  secretEnv: string;
  eventId: string;
  operation: string;
  ownerId: string;
  toleranceSeconds?: number;
}

export interface OnejobConfig {
  providers: Record<string, ProviderConfig>;
  operations: Record<string, OperationConfig>;
  outbox?: { publishers?: PublisherConfig[]; [option: string]: unknown };
  inbox?: { sources?: Record<string, InboxSourceConfig> };
  worker?: { concurrency?: number; leaseMs?: number; pollMs?: number; [option: string]: unknown };
}
