// The shape of the JSON configuration file, derived from its JSON Schema
// (src/config/configSchema.ts), so the two cannot drift apart. docs/configuration.md
// describes each field.
import type { FromSchema } from 'json-schema-to-ts';
import type { configSchema, operationSchema, providerSchema, publisherSchema } from './configSchema.js';

export type JsonSchema = Record<string, unknown>;

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
export type OnejobConfig = FromSchema<typeof configSchema>;

/** One entry of `providers` in the configuration, by `kind` (docs/providers.md). */
export type ProviderConfig = FromSchema<typeof providerSchema>;
export type HttpProviderConfig = Extract<ProviderConfig, { kind: 'http' }>;
export type OpenAiProviderConfig = Extract<ProviderConfig, { kind: 'openai-compatible' }>;
export type AnthropicProviderConfig = Extract<ProviderConfig, { kind: 'anthropic' }>;
export type SimulatedProviderConfig = Extract<ProviderConfig, { kind: 'simulated' }>;
/** One step of a simulated provider's script; the steps play in order, the last one repeating. */
export type SimulatedStep = NonNullable<SimulatedProviderConfig['script']>[number];
/** Costs in micro-units of `currency` (1 USD = 1,000,000). */
export type Prices = NonNullable<HttpProviderConfig['prices']>;

/** One entry of `operations` in the configuration (docs/configuration.md). */
export type OperationConfig = FromSchema<typeof operationSchema>;
export type Effect = NonNullable<OperationConfig['effect']>;

export type PublisherConfig = FromSchema<typeof publisherSchema>;
export type NatsPublisherConfig = Extract<PublisherConfig, { kind: 'nats' }>;
export type RabbitPublisherConfig = Extract<PublisherConfig, { kind: 'rabbitmq' }>;
export type WebhookPublisherConfig = Extract<PublisherConfig, { kind: 'webhook' }>;
export type LogPublisherConfig = Extract<PublisherConfig, { kind: 'log' }>;

export type OutboxConfig = NonNullable<OnejobConfig['outbox']>;
/** Retry options of the outbox; a publisher may override each of them. */
export type PublisherRetryConfig = Pick<OutboxConfig, 'maxDeliveries' | 'retryBaseMs' | 'retryMaxMs'>;

export type InboxSourceConfig = NonNullable<NonNullable<OnejobConfig['inbox']>['sources']>[string];
export type WorkerConfig = NonNullable<OnejobConfig['worker']>;
/** Group commit of `jobs.create` and `POST /v1/jobs` (docs/configuration.md). */
export type IntakeConfig = NonNullable<OnejobConfig['intake']>;
/** Timeouts and per-owner bounds of the HTTP server (docs/configuration.md). */
export type HttpConfig = NonNullable<OnejobConfig['http']>;
/** The SDK drop-in endpoints: model names and how long a call waits (docs/compat.md). */
export type CompatConfig = NonNullable<OnejobConfig['compat']>;
/** One entry of `compat.models`: the operation a model name stands for (docs/compat.md). */
export type CompatModelConfig = NonNullable<CompatConfig['models']>[string];
/** Per-owner token buckets for requests and job creation (docs/configuration.md). */
export type LimitsConfig = NonNullable<OnejobConfig['limits']>;
/** How onejob reaches PostgreSQL: directly or through a pooler (docs/operations.md#poolers). */
export type DatabaseConfig = NonNullable<OnejobConfig['database']>;
