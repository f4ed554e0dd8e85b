import type { PublisherConfig } from '../config/types.js';
import { DatabaseOutage } from '../db/databaseOutage.js';
import type { RelayDeps } from '../engine/engineDeps.js';
import { OUTBOX_CHANNEL } from '../events/wakeups.js';
import { cleanupOutbox } from './cleanupOutbox.js';
import { outboxBacklog } from './outboxBacklog.js';
import { type OutboxSettings, outboxSettings, retryPolicy } from './outboxSettings.js';
import type { Publisher } from './publisher.js';
import { createPublishers } from './publishers/createPublishers.js';
import { registerPublishers } from './registerPublishers.js';
import { type RelayStats, runPublisherLoop, Wakeup } from './runPublisherLoop.js';

/** Channel writers notify after committing outbox events (src/events/wakeups.ts). */
export { OUTBOX_CHANNEL, type RelayStats };

// Passes per publisher running side by side, each its own transaction on its own
// connection: while one batch waits for its last acks and commits its marks, the next is
// already claimed and publishing. They split the rows through SKIP LOCKED like separate
// relays do, and a subject whose earliest pending row one pass holds is left out of the
// other's claim, so per-subject order is unchanged.
const PASSES_PER_PUBLISHER = 2;

const METRICS_INTERVAL_MS = 2_000;

/** Options of the relay role (`start({ relay })`, `startRelay`). */
export interface RelayOptions {
  /** Publishers to run instead of the ones in `config.outbox.publishers`. */
  publishers?: Publisher[];
  /** Overrides of the outbox settings from the config. */
  settings?: Partial<OutboxSettings>;
  env?: NodeJS.ProcessEnv;
}

/** A running relay: its publishers, counters, and `stop()`. */
export interface Relay {
  readonly publishers: readonly Publisher[];
  /** Counters per publisher name, for this relay only. */
  readonly stats: ReadonlyMap<string, RelayStats>;
  stop(): Promise<void>;
}

/**
 * The relay role: publishes outbox events to every configured publisher. Each publisher
 * has its own loops (PASSES_PER_PUBLISHER), woken by LISTEN/NOTIFY when writers commit
 * events and by a poll as a fallback (a lost notification, a write in a caller's
 * transaction, a retry coming due). Any number of relays may run against one database;
 * they share the work through row locks.
 *
 * @example
 * ```ts
 * const relay = await startRelay(onejob, { settings: { batchSize: 100 } });
 * // ...
 * await relay.stop();
 * ```
 */
export async function startRelay(onejob: RelayDeps, options: RelayOptions = {}): Promise<Relay> {
  const { pool, logger, metrics, config } = onejob;
  const log = logger.child({ role: 'relay' });
  const settings = { ...outboxSettings(config.outbox), ...options.settings };
  const publishers = options.publishers ?? createPublishers(config.outbox?.publishers, options.env, log);
  const own = new Map<string, PublisherConfig>(
    (config.outbox?.publishers ?? []).map((c) => [c.name ?? c.kind, c]),
  );
  const stats = new Map<string, RelayStats>(
    publishers.map((p) => [p.name, { published: 0, duplicates: 0, refused: 0, dead: 0 }]),
  );
  const wakeups: Wakeup[] = [];
  const stopping = new AbortController();
  // One outage for all the relay's loops: a failover is logged once when it begins and once when it ends.
  const outage = new DatabaseOutage(log, 'outbox relay');
  const wakeAll = () => {
    for (const w of wakeups) w.signal();
  };

  await registerPublishers(pool, publishers);

  // Woken through the process's one LISTEN connection (src/events/notificationHub.ts),
  // which reconnects by itself; meanwhile the poll keeps the loops going.
  const unlisten = await onejob.wakeups.listen(OUTBOX_CHANNEL, wakeAll);

  const loops = publishers.flatMap((publisher) =>
    Array.from({ length: PASSES_PER_PUBLISHER }, () => {
      const wakeup = new Wakeup();
      wakeups.push(wakeup);
      return runPublisherLoop({
        pool,
        log,
        publisher,
        policy: retryPolicy(settings, own.get(publisher.name)),
        batchSize: settings.batchSize,
        pollMs: settings.pollMs,
        counters: stats.get(publisher.name) as RelayStats,
        wakeup,
        outage,
        stopping: stopping.signal,
      });
    }),
  );

  const refreshMetrics = async () => {
    try {
      const names = new Set(publishers.map((p) => p.name));
      for (const b of await outboxBacklog(pool)) {
        if (!names.has(b.publisher)) continue;
        metrics.outboxBacklog.set({ publisher: b.publisher }, b.pending);
        metrics.outboxOldestAge.set({ publisher: b.publisher }, b.oldestAgeSeconds);
      }
    } catch (error) {
      outage.failed(error, 'outbox backlog query failed', 0);
    }
  };
  const cleanup = async () => {
    try {
      const deleted = await cleanupOutbox(pool, settings.retentionHours);
      if (deleted > 0)
        log.info({ deleted, retentionHours: settings.retentionHours }, 'published outbox events cleaned up');
    } catch (error) {
      outage.failed(error, 'outbox cleanup failed', 0);
    }
  };
  await refreshMetrics();
  const metricsTimer = setInterval(refreshMetrics, METRICS_INTERVAL_MS);
  const cleanupTimer = setInterval(cleanup, settings.cleanupIntervalMs);
  metricsTimer.unref();
  cleanupTimer.unref();
  void cleanup();

  log.info({ publishers: publishers.map((p) => ({ name: p.name, kind: p.kind })) }, 'outbox relay started');

  let stopped: Promise<void> | undefined;
  return {
    publishers,
    stats,
    stop: () => {
      stopped ??= (async () => {
        stopping.abort();
        wakeAll();
        clearInterval(metricsTimer);
        clearInterval(cleanupTimer);
        await Promise.all(loops);
        for (const p of publishers) await p.close().catch(() => undefined);
        await unlisten();
      })();
      return stopped;
    },
  };
}
