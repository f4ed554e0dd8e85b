// What a chaos run records (the history) and what it reads back from the database at the
// end (the snapshot). The checker is a set of pure functions over these two.
import type { FaultKind } from '../faults/faultKinds.js';

export type { FaultKind };

/** Features of the system under test that the run found working; checks of missing ones are skipped. */
export interface Features {
  /** Jobs leave `queued`: a worker role claims and runs them. */
  worker: boolean;
  /** Events reach the NATS stream: the relay role publishes the outbox. */
  relay: boolean;
  /** The consumer applied events through the exactly-once consumer helper. */
  consumerHelper: boolean;
  /** POST /v1/inbox/{source} answers. */
  inbox: boolean;
  /** POST /v1/ledger/transfers answers. */
  ledger: boolean;
  /** Pure inference jobs run on the fake model providers (hedges, fallbacks, costs). */
  inference?: boolean;
  /** A library-mode process runs code operations beside the service processes. */
  library?: boolean;
}

export type CallKind = 'create' | 'get' | 'inbox' | 'transfer';

/** One HTTP request a load client made and what came back. */
export interface ApiCall {
  client: string;
  kind: CallKind;
  owner: string;
  /** Idempotency key, webhook event id or transfer id: the identity the request carries. */
  key: string;
  /** The process that was asked (e.g. `api-1`). */
  target: string;
  /** Webhook source, for inbox calls. */
  source?: string;
  startedAt: number;
  endedAt: number;
  /** HTTP status, or 0 when no answer came (connection refused or reset: the process died). */
  status: number;
  code?: string;
  jobId?: string;
  replayed?: boolean;
}

/** One request a fake provider received. */
export interface ProviderRequest {
  provider: string;
  /** The Idempotency-Key header: the job id. */
  key: string;
  attempt: number;
  receivedAt: number;
  /** When the provider finished working on it (a client that hung up does not stop the work). */
  doneAt: number;
  outcome: 'charged' | 'replayed' | 'in_progress' | 'refused';
}

/** One request a fake model provider received (pure inference operations). */
export interface InferenceRequest {
  provider: string;
  jobId: string;
  /** The x-request-id header: the attempt id. */
  attemptId: string;
  attempt: number;
  /** A contract verification's request, not an attempt's. */
  verification: boolean;
  receivedAt: number;
  doneAt: number;
  /** answered; aborted: the caller hung up before the answer; silent: never meant to answer. */
  outcome: 'answered' | 'aborted' | 'silent';
  /** The id in the answer's output, when one was sent. */
  answerId?: string;
  /** Answered on purpose after the attempt's deadline (the late-answer fault). */
  late?: boolean;
}

/** What the checker must know of the operations to judge fallbacks. */
export interface OperationContract {
  operation: string;
  /** Providers in order; the first is the primary, always allowed. */
  providers: string[];
  /** The current contract hash per provider, as the failover gate computes it. */
  contractHashes: Record<string, string>;
}

/** One delivery of one event to the chaos consumer. */
export interface Delivery {
  eventId: string;
  type: string;
  subject: string;
  idempotencyKey?: string;
  at: number;
  redelivered: boolean;
  /** The consumer committed its transaction and acked this delivery. */
  acked?: boolean;
}

export interface FaultRecord {
  kind: FaultKind;
  /** Failpoint name, process name, node name or provider. */
  /** The process that was asked (e.g. `api-1`). */
  target: string;
  /** Webhook source, for inbox calls. */
  source?: string;
  startedAt: number;
  endedAt: number;
  /** What happened: for a failpoint, whether the process actually reached it and died. */
  note?: string;
}

export interface ChaosHistory {
  seed: number;
  startedAt: number;
  /** End of the fault phase; calm load may continue after it. */
  faultsEndedAt: number;
  endedAt: number;
  features: Features;
  calls: ApiCall[];
  providerRequests: ProviderRequest[];
  /** Requests the fake model providers received; empty without inference load. */
  inferenceRequests?: InferenceRequest[];
  /** Operations with fallbacks, for the verification check. */
  contracts?: OperationContract[];
  deliveries: Delivery[];
  faults: FaultRecord[];
  /** Jobs created inside transactions that were then rolled back. */
  rolledBack: { owner: string; key: string }[];
  /** Budget usage read after each fault (when the database answered); absent without budgets. */
  budgetSamples?: BudgetSample[];
}

/** One owner's budget in one period: its limit, and what was spent and held in it. */
export interface BudgetUsageRow {
  ownerId: string;
  currency: string;
  period: string;
  periodStart: string;
  limitMicros: number;
  spentMicros: number;
  heldMicros: number;
}

export interface BudgetSample {
  at: number;
  /** The fault just applied. */
  after: string;
  rows: BudgetUsageRow[];
}

export interface SnapshotJob {
  id: string;
  ownerId: string;
  idempotencyKey: string;
  operation: string;
  state: string;
  completedBy: string | null;
  version: number;
  /** When the job reached a final state, for throughput figures. */
  finishedAt?: number | null;
  /** `answerId` of the job's result, for inference jobs (from the fake model providers). */
  resultAnswerId?: string | null;
}

export interface SnapshotAttempt {
  id: string;
  jobId: string;
  n: number;
  state: string;
  exclusive: boolean;
  startedAt: number;
  finishedAt: number | null;
  provider?: string;
  /** `first`, `retry`, `hedge`, `api`... */
  origin?: string;
  costMicros?: number | null;
  costPostedAt?: number | null;
}

/** One ledger transfer that posts an attempt's cost (`attempt-cost:<attempt id>`), or one like it. */
export interface SnapshotCostTransfer {
  ownerId: string;
  id: string;
  debitAccount: string;
  creditAccount: string;
  amount: number;
  currency: string;
  reference: string | null;
}

/** One provider verification row. */
export interface SnapshotVerification {
  provider: string;
  operation: string;
  contractHash: string;
  passed: boolean;
  startedAt: number;
  finishedAt: number;
}

export interface SnapshotEvent {
  id: string;
  type: string;
  subject: string;
  idempotencyKey?: string;
  /** The winning attempt a `onejob.job.succeeded` event names. */
  completedBy?: string;
}

export interface DbSnapshot {
  jobs: SnapshotJob[];
  attempts: SnapshotAttempt[];
  /** Every committed outbox event. */
  outbox: SnapshotEvent[];
  /** Rows the consumer wrote per event, through the helper; null when the helper is absent. */
  effects: { eventId: string; count: number }[] | null;
  /** Per owner and currency, total debits and credits; null when the ledger is absent. */
  ledger: { ownerId: string; currency: string; debits: number; credits: number }[] | null;
  /** Webhook inbox rows; null when the inbox is absent. */
  inbox: { source: string; eventId: string; jobId: string }[] | null;
  /** Transfers on cost accounts (`usage:*` / `provider:*`); absent in older snapshots. */
  costTransfers?: SnapshotCostTransfer[];
  /** Every ledger transfer by (owner, id): what an acknowledged transfer must find; absent in older snapshots. */
  transfers?: { ownerId: string; id: string }[];
  verifications?: SnapshotVerification[];
  /** Budget usage per owner, currency and period; absent before budgets existed. */
  budgets?: BudgetUsageRow[];
  /** Holds not yet posted or voided, with their attempt's state; absent before budgets existed. */
  openHolds?: { holdId: string; attemptState: string | null }[];
}
