// One pass loop of one publisher in the relay: claim a batch, publish it, mark it, and
// sleep only when a pass found nothing (until woken or the poll interval passes).
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { DatabaseOutage } from '../db/databaseOutage.js';
import type { RetryPolicy } from './outboxSettings.js';
import type { Publisher } from './publisher.js';
import { relayBatch } from './relayBatch.js';

// A broker that cannot be reached is retried from 100 ms up to this, doubling.
const UNAVAILABLE_MAX_MS = 5_000;

/** Counters of one publisher in one relay. */
export interface RelayStats {
  published: number;
  duplicates: number;
  refused: number;
  dead: number;
}

/** Wakes a sleeping loop early; a wake that arrives while the loop is busy is kept. */
export class Wakeup {
  private pending = false;
  private resolve: (() => void) | undefined;
  signal() {
    this.pending = true;
    this.resolve?.();
  }
  async wait(ms: number) {
    if (!this.pending) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.resolve = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.resolve = undefined;
    }
    this.pending = false;
  }
}

export interface PublisherLoop {
  pool: pg.Pool;
  log: Logger;
  publisher: Publisher;
  policy: RetryPolicy;
  batchSize: number;
  pollMs: number;
  counters: RelayStats;
  wakeup: Wakeup;
  outage: DatabaseOutage;
  stopping: AbortSignal;
}

/** Runs passes for one publisher until `stopping` is aborted. */
export async function runPublisherLoop(l: PublisherLoop): Promise<void> {
  const { publisher, log, counters } = l;
  let backoff = 0;
  while (!l.stopping.aborted) {
    let claimed = 0;
    try {
      const r = await relayBatch(l.pool, publisher, l.policy, l.batchSize);
      l.outage.succeeded();
      claimed = r.claimed;
      counters.published += r.published;
      counters.duplicates += r.duplicates.length;
      counters.refused += r.refused;
      counters.dead += r.dead.length;
      for (const eventId of r.duplicates) {
        log.info(
          { publisher: publisher.name, eventId, duplicate: true },
          'broker already had this event (duplicate by id)',
        );
      }
      for (const d of r.dead) {
        log.error(
          { publisher: publisher.name, eventId: d.eventId, attempts: d.attempts },
          'outbox event became a dead letter',
        );
      }
      if (r.unavailable) {
        backoff = Math.min(Math.max(backoff * 2, 100), UNAVAILABLE_MAX_MS);
        log.warn(
          { publisher: publisher.name, err: r.unavailable, retryInMs: backoff },
          'publisher unavailable; backing off',
        );
        await sleep(backoff, undefined, { signal: l.stopping }).catch(() => undefined);
        continue;
      }
      backoff = 0;
    } catch (error) {
      const wait = l.outage.failed(error, `outbox relay pass failed (${publisher.name})`, l.pollMs, 'error');
      await sleep(wait, undefined, { signal: l.stopping }).catch(() => undefined);
      continue;
    }
    // A pass that found work looks again at once; an empty one sleeps until woken.
    if (claimed === 0) await l.wakeup.wait(l.pollMs);
  }
}
