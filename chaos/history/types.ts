// What a chaos run records (the history) and what it reads back from the database at the
// end (the snapshot). The checker is a set of pure functions over these two.

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

export type FaultKind =
  | 'failpoint_kill'
  | 'process_kill'
  | 'postgres_restart'
  | 'nats_node_restart'
  | 'provider_stall';

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
  deliveries: Delivery[];
  faults: FaultRecord[];
  /** Jobs created inside transactions that were then rolled back. */
  rolledBack: { owner: string; key: string }[];
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
}

export interface SnapshotAttempt {
  id: string;
  jobId: string;
  n: number;
  state: string;
  exclusive: boolean;
  startedAt: number;
  finishedAt: number | null;
}

export interface SnapshotEvent {
  id: string;
  type: string;
  subject: string;
  idempotencyKey?: string;
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
}
