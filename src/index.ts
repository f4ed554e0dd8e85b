/**
 * The library API of onejob: embed the engine in your own Node.js service, share your
 * `pg` pool and transactions, and write operations as TypeScript functions.
 *
 * `onejob.start()` runs the worker and the outbox relay in your process. The relay
 * publishes every event to the publishers in `config.outbox.publishers`; when there are
 * none, it runs the **log publisher, which writes each event through the logger at debug
 * level** (with `output: 'stdout'`, one CloudEvent JSON line per event on stdout). To send
 * events elsewhere, name the publishers you want in `config.outbox.publishers`
 * (or pass them as `start({ relay: { publishers } })`), or start only the worker with
 * `start({ roles: ['worker'] })` and run the relay elsewhere; events then wait in the
 * outbox until a relay publishes them.
 *
 * @example
 * ```ts
 * import { createOnejob, defineOperation, migrate } from 'onejob';
 *
 * const greet = defineOperation('greet', {
 *   inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
 *   attemptTimeoutMs: 5_000,
 *   async run(ctx) {
 *     return { greeting: `hello ${ctx.input.name}` };
 *   },
 * });
 * await migrate(process.env.DATABASE_URL!);
 * const onejob = createOnejob({ connectionString: process.env.DATABASE_URL!, operations: [greet] });
 * await onejob.start({ roles: ['worker'] }); // no relay in this process: nothing printed on stdout
 * ```
 *
 * @module onejob
 */

export type { BudgetPeriod, BudgetView } from './budgets/budgetView.js';
export type { SetBudgetRequest } from './budgets/setBudget.js';
export type { OnejobConfig, OperationConfig, ProviderConfig } from './config/types.js';
export {
  createOnejob,
  type Onejob,
  type OnejobOptions,
  type TxOption,
  type TypedOnejob,
} from './createOnejob.js';
export { migrate } from './db/migrate.js';
export type { AttemptsHandle } from './engine/handles/attemptsHandle.js';
export type { BudgetsHandle } from './engine/handles/budgetsHandle.js';
export type { InboxHandle } from './engine/handles/inboxHandle.js';
export type { AccountRequest, GetTransferRequest, LedgerHandle } from './engine/handles/ledgerHandle.js';
export type { OutboxHandle } from './engine/handles/outboxHandle.js';
export type { ProvidersHandle } from './engine/handles/providersHandle.js';
export { ConfigError, loadConfig, validateConfig } from './engine/loadConfig.js';
export {
  BACKGROUND_ROLES,
  type BackgroundRole,
  type RunningRoles,
  type StartOptions,
} from './engine/startRoles.js';
export { type ErrorCode, errorRegistry } from './errors/errorRegistry.js';
export { isOnejobError, OnejobError } from './errors/OnejobError.js';
export type { CloudEvent } from './events/cloudEvent.js';
export { acceptDelivery, type DeliveryAnswer, inboxJobKey } from './inbox/acceptDelivery.js';
export { type InboxSource, inboxSources } from './inbox/inboxSources.js';
export { type InboxEventsFilter, type InboxEventView, listInboxEvents } from './inbox/listInboxEvents.js';
export { type RawDelivery, receiveWebhook } from './inbox/receiveWebhook.js';
export {
  type EventIdSource,
  registerSignatureScheme,
  type SchemeOptions,
  type SignatureScheme,
  type SignatureVerifier,
  type SignedDelivery,
  type SignedPayload,
} from './inbox/signatureSchemes.js';
export type { CreateJobRequest, CreateJobResult } from './jobs/createJob.js';
export { fingerprint } from './jobs/fingerprint.js';
export type { JobDeliveryView, JobEventView } from './jobs/jobHistory.js';
export type { AttemptState, AttemptView, JobState, JobView } from './jobs/jobView.js';
export type { JobPage, ListJobsQuery } from './jobs/listJobs.js';
export type { TransferRequest } from './ledger/checkTransferRequest.js';
export {
  type CreatePendingTransferResult,
  createPendingTransfer,
  type PendingTransferRequest,
} from './ledger/createPendingTransfer.js';
export { type CreateTransferResult, createTransfer } from './ledger/createTransfer.js';
export { type Balance, getBalance } from './ledger/getBalance.js';
export { getTransfer } from './ledger/getTransfer.js';
export { type EntryPage, type EntryView, type ListEntriesQuery, listEntries } from './ledger/listEntries.js';
export type { PendingTransferView } from './ledger/pendingTransferView.js';
export {
  type AttemptCost,
  attemptCostAccounts,
  attemptCostTransferId,
  postAttemptCost,
} from './ledger/postAttemptCost.js';
export {
  getPendingTransfer,
  type PostPendingTransferRequest,
  postPendingTransfer,
  type ResolvePendingTransferResult,
  type VoidPendingTransferRequest,
  voidPendingTransfer,
} from './ledger/resolvePendingTransfer.js';
export {
  type ReverseTransferRequest,
  type ReverseTransferResult,
  reverseTransfer,
} from './ledger/reverseTransfer.js';
export type { TransferView } from './ledger/transferView.js';
export { AttemptAborted } from './operations/code/codeProvider.js';
export type {
  InputFor,
  JobReadOptions,
  JobRequest,
  ResultFor,
  TypedCreateJobResult,
} from './operations/code/typedJobs.js';
export {
  DefiniteFailure,
  type DefiniteFailureOptions,
  isDefiniteFailure,
} from './operations/DefiniteFailure.js';
export {
  type AnyCodeOperation,
  type CodeOperation,
  type CodeOperationDefinition,
  defineOperation,
  type RunContext,
} from './operations/defineOperation.js';
export {
  type FromJsonSchema,
  type InferInput,
  type TypedSchema,
  typedSchema,
} from './operations/inferInput.js';
export { cleanupOutbox } from './outbox/cleanupOutbox.js';
export { type ConsumeOnceResult, consumeOnce, pruneConsumerInbox } from './outbox/consumeOnce.js';
export {
  type DeadLetter,
  type DeadLetterPage,
  type DeadLetterQuery,
  listDeadLetters,
  replayDeadLetter,
} from './outbox/deadLetters.js';
export {
  type BacklogQuery,
  type DeliveryStateCount,
  outboxBacklog,
  outboxDeliveryStates,
  type PublisherBacklog,
} from './outbox/outboxBacklog.js';
export { type PublishEventInput, type PublishEventResult, publishEvent } from './outbox/publishEvent.js';
export { type OutboxEvent, PublishError, type Publisher, type PublishReceipt } from './outbox/publisher.js';
export { createPublishers } from './outbox/publishers/createPublishers.js';
export type { RelayOptions } from './outbox/startRelay.js';
export { type Relay, type RelayStats, startRelay } from './outbox/startRelay.js';
export type { Provider, ProviderCall, ProviderOutcome } from './providers/types.js';
export type { ProviderOperationStatus, ProviderStatus } from './providers/verification/providerStatus.js';
export type { VerificationReport, VerifyOptions } from './providers/verification/verifyProvider.js';
export type { WorkerOptions } from './worker/worker.js';
