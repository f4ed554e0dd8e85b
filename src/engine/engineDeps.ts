// What the engine's parts receive instead of the whole engine. A leaf: it imports types
// only, from modules that import nothing of the engine, so the worker, the relay,
// reconciliation, verification, the failover gate, the inbox and the handles depend on
// a pool, a config and a few registries, never on the engine object (the test in
// test/architecture/importGraph.unit.test.ts keeps the domain out of the rest of engine/).
import type pg from 'pg';
import type { Logger } from 'pino';
import type { RelayText } from '../compat/streamRelay.js';
import type { OnejobConfig } from '../config/types.js';
import type { Metrics } from '../observability/createMetrics.js';
import type { OperationRegistry } from '../operations/operationRegistry.js';
import type { ProviderRegistry } from '../providers/createProviders.js';

/** Options for calls that may join the caller's transaction. */
export interface TxOption {
  /** A client inside your open transaction: the job commits or rolls back with your rows. */
  tx?: pg.PoolClient | pg.Client;
}

/** Wake-ups sent after commit (src/events/wakeups.ts). */
export interface WakeupSender {
  /** Committed outbox events may be pending: relays look now. */
  outbox(): void;
  /** New jobs were committed: an idle worker claims now, and relays publish their events. */
  jobsQueued(): void;
  /** Job `jobId` may have settled: its long-polls re-read it now (relays are woken too). */
  jobSettled(jobId: string): void;
}

/** Wake-ups, and the process's one LISTEN connection (src/events/notificationHub.ts). */
export interface WakeupHub extends WakeupSender {
  /**
   * Calls `handler` with each notification's payload on `channel`, and with null when
   * listening (re)starts; resolves to the function that stops it.
   */
  listen(channel: string, handler: (payload: string | null) => void): Promise<() => Promise<void>>;
  /**
   * Calls `watcher` when new jobs may be claimable, one watcher of the process per
   * announcement (it returns false when it has no free slot, and the next is asked).
   */
  listenForJobs(watcher: () => boolean): Promise<() => Promise<void>>;
}

/** Everything a part of the engine may be given; each part names the few it uses. */
export interface EngineDeps {
  readonly pool: pg.Pool;
  readonly config: OnejobConfig;
  readonly operations: OperationRegistry;
  readonly providers: ProviderRegistry;
  readonly wakeups: WakeupSender;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

/** The failover gate and the provider choice: the verifications table and the config. */
export type GateDeps = Pick<EngineDeps, 'pool' | 'config'>;

/** What applies a settlement's effects after commit (`applyAfterCommit`, src/jobs/afterCommit.ts). */
export type EffectDeps = Pick<EngineDeps, 'wakeups' | 'metrics' | 'logger'>;

/** The worker and reconciliation. */
/**
 * The worker: everything, and the hub, whose announcements of committed jobs wake an idle
 * claim loop before its next poll.
 */
export type WorkerDeps = EngineDeps & {
  readonly wakeups: WakeupHub;
  /**
   * Connections that keep their plans (src/db/keptPlanPool.ts) for the claim and the
   * completion batch; absent behind a pooler or with a caller's pool, and then those
   * statements go through `pool` with their planner settings sent per transaction.
   */
  readonly keptPlanPool?: pg.Pool | undefined;
  /**
   * The relay of an attempt's text as its provider produces it, for the operations whose
   * text is relayed (the SDK drop-in's live streams); absent: no text is relayed.
   */
  readonly relayText?: RelayText | undefined;
};

/** The relay. */
export type RelayDeps = Pick<EngineDeps, 'pool' | 'config' | 'metrics' | 'logger'> & {
  readonly wakeups: WakeupHub;
};

/** Contract verification and the providers matrix. */
export type VerifyDeps = Pick<EngineDeps, 'pool' | 'config' | 'operations' | 'metrics' | 'logger'> & {
  readonly providers?: ProviderRegistry;
};

/** Inbox acceptance: creates the job of a delivery inside the delivery's transaction, then wakes the relays. */
export type InboxDeps = Pick<EngineDeps, 'pool' | 'operations' | 'metrics' | 'wakeups'>;
