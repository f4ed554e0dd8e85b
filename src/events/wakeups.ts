import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Queryable } from '../db/createPool.js';

/**
 * Relays LISTEN here; a notification means "committed outbox events may be pending". Its
 * payload is empty, or `queued:<process tag>` when the commits include new jobs: idle
 * workers claim on those only, so a settlement or a published event wakes no worker.
 */
export const OUTBOX_CHANNEL = 'onejob_outbox';
/** The outbox channel's payload prefix for "new jobs were committed" (the sender's tag follows). */
export const JOBS_QUEUED_PREFIX = 'queued:';
/** Long-polls LISTEN here; the payload is a comma-separated list of job ids that settled. */
export const JOB_SETTLED_CHANNEL = 'onejob_job_settled';

// PostgreSQL refuses payloads of 8000 bytes or more; ids are ASCII, so characters are bytes.
const MAX_PAYLOAD_BYTES = 7_900;
const DEFAULT_MIN_INTERVAL_MS = 10;

// Sent on an autocommit connection of the pool, never inside a job's transaction: a
// transaction that notifies holds a global lock from its commit through its WAL flush,
// so notifying from the writers serialised their commits. This one transaction carries
// every payload of every channel that queued up, and commits without waiting for the
// flush (a notification is not durable anyway), so it holds that lock only briefly.
const NOTIFY_SQL = `
SELECT pg_notify(c, p), set_config('synchronous_commit', 'off', true)
FROM unnest($1::text[], $2::text[]) AS n(c, p)`;

export interface WakeupsOptions {
  logger?: Logger | undefined;
  /** Least time between two notifications from this process, both channels together. Default 10 ms. */
  minIntervalMs?: number;
}

/** What one channel has been asked for since its last notification. */
interface Pending {
  wanted: boolean;
  ids: Set<string>;
}

/**
 * The notifications of one process: wake-ups coalesce while a notification is in flight or
 * being throttled, and every channel's go out together in one transaction. A wake-up after
 * a quiet spell goes out in the next turn of the event loop; under load there is at most
 * one notification transaction per `minIntervalMs`. Each is a transaction of its own for
 * PostgreSQL (an xid, a commit record, the notify lock), so a busy worker that sent one per
 * completion batch spent about half its transactions on them.
 */
class Notifier {
  private readonly pending = new Map<string, Pending>();
  private running: Promise<void> | undefined;
  private closed = false;
  private lastSentAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Queryable,
    private readonly minIntervalMs: number,
    private readonly logger: Logger | undefined,
  ) {}

  wake(channel: string, id?: string): void {
    if (this.closed) return;
    let p = this.pending.get(channel);
    if (!p) {
      p = { wanted: false, ids: new Set() };
      this.pending.set(channel, p);
    }
    if (id !== undefined) p.ids.add(id);
    p.wanted = true;
    this.kick();
  }

  /** Resolves once everything asked for so far has been sent (or has failed). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  private wanted(): boolean {
    for (const p of this.pending.values()) if (p.wanted) return true;
    return false;
  }

  private kick(): void {
    if (this.running) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      // A wake-up that arrived after the loop's last check but before this point.
      if (this.wanted() && !this.closed) this.kick();
    });
  }

  private async drain(): Promise<void> {
    // Wake-ups from the same turn of the event loop share one notification.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.wanted()) {
      // The interval counts from the previous notification, even one sent by a drain that
      // has ended: wake-ups that each arrive just after the last one went out are still
      // one per interval.
      const wait = this.lastSentAt + this.minIntervalMs - Date.now();
      if (wait > 0) await sleep(wait);
      const [channels, payloads] = this.takePayloads();
      this.lastSentAt = Date.now();
      try {
        await this.db.query({ name: 'onejob-wakeup', text: NOTIFY_SQL, values: [channels, payloads] });
      } catch (error) {
        // Lost: the listeners' polls pick the change up instead.
        this.logger?.debug({ err: error, channels: [...new Set(channels)] }, 'wake-up notification failed');
      }
    }
  }

  /** Every wanted channel's payloads: its ids joined under PostgreSQL's 8000-byte limit, or one empty payload. */
  private takePayloads(): [string[], string[]] {
    const channels: string[] = [];
    const payloads: string[] = [];
    for (const [channel, p] of this.pending) {
      if (!p.wanted) continue;
      p.wanted = false;
      if (p.ids.size === 0) {
        channels.push(channel);
        payloads.push('');
        continue;
      }
      let current = '';
      for (const id of p.ids) {
        if (current.length + id.length + 1 > MAX_PAYLOAD_BYTES) {
          channels.push(channel);
          payloads.push(current);
          current = '';
        }
        current = current ? `${current},${id}` : id;
      }
      channels.push(channel);
      payloads.push(current);
      p.ids.clear();
    }
    return [channels, payloads];
  }
}

/**
 * Wake-ups sent after commit. Writers call these once their transaction has committed;
 * calls are cheap and never wait: each channel has at most one notification in flight
 * and at most one per `minIntervalMs`, and everything asked for meanwhile goes in the
 * next one. A wake-up can be lost (failed notification, listener reconnecting); the
 * relay's poll (`outbox.pollMs`) and the long-poll's re-read (500 ms) bound the delay.
 */
export class Wakeups {
  private readonly notifier: Notifier;
  /** This process's jobs-queued payload: its own hub has woken its worker already and skips the echo. */
  protected readonly jobsQueuedPayload = `${JOBS_QUEUED_PREFIX}${randomBytes(6).toString('hex')}`;

  constructor(db: Queryable, options: WakeupsOptions = {}) {
    this.notifier = new Notifier(db, options.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS, options.logger);
  }

  /** Committed outbox events may be pending: relays look now rather than at their next poll. */
  outbox(): void {
    this.notifier.wake(OUTBOX_CHANNEL);
  }

  /**
   * New jobs were committed: idle workers claim now rather than at their next poll, and
   * relays publish the jobs' `created` events. One notification carries both.
   */
  jobsQueued(): void {
    this.notifier.wake(OUTBOX_CHANNEL, this.jobsQueuedPayload);
  }

  /**
   * Job `jobId` may have settled: its long-polls re-read it now. Settling writes the job's
   * events too, so relays are woken as well.
   */
  jobSettled(jobId: string): void {
    this.notifier.wake(JOB_SETTLED_CHANNEL, jobId);
    this.notifier.wake(OUTBOX_CHANNEL);
  }

  /** Resolves once every wake-up asked for so far has been sent. */
  async flush(): Promise<void> {
    await this.notifier.flush();
  }

  /** Sends what is queued, then ignores further wake-ups (before the pool closes). */
  async close(): Promise<void> {
    await this.notifier.close();
  }
}
