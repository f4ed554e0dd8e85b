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
// every payload that queued up, and commits without waiting for the flush (a
// notification is not durable anyway), so it holds that lock only briefly.
const NOTIFY_SQL = `
SELECT pg_notify($1, p), set_config('synchronous_commit', 'off', true)
FROM unnest($2::text[]) AS p`;

export interface WakeupsOptions {
  logger?: Logger | undefined;
  /** Least time between two notifications on one channel from this process. Default 10 ms. */
  minIntervalMs?: number;
}

/** One channel: wake-ups coalesce while a notification is in flight or being throttled. */
class Channel {
  private wanted = false;
  private readonly ids = new Set<string>();
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly db: Queryable,
    private readonly name: string,
    private readonly minIntervalMs: number,
    private readonly logger: Logger | undefined,
  ) {}

  wake(id?: string): void {
    if (this.closed) return;
    if (id !== undefined) this.ids.add(id);
    this.wanted = true;
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

  private kick(): void {
    if (this.running) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      // A wake-up that arrived after the loop's last check but before this point.
      if (this.wanted && !this.closed) this.kick();
    });
  }

  private async drain(): Promise<void> {
    // Wake-ups from the same turn of the event loop share one notification.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.wanted) {
      this.wanted = false;
      const started = Date.now();
      const payloads = this.takePayloads();
      try {
        await this.db.query({ name: 'onejob-wakeup', text: NOTIFY_SQL, values: [this.name, payloads] });
      } catch (error) {
        // Lost: the listeners' polls pick the change up instead.
        this.logger?.debug({ err: error, channel: this.name }, 'wake-up notification failed');
      }
      const wait = this.minIntervalMs - (Date.now() - started);
      if (this.wanted && wait > 0) await sleep(wait);
    }
  }

  private takePayloads(): string[] {
    if (this.ids.size === 0) return [''];
    const payloads: string[] = [];
    let current = '';
    for (const id of this.ids) {
      if (current.length + id.length + 1 > MAX_PAYLOAD_BYTES) {
        payloads.push(current);
        current = '';
      }
      current = current ? `${current},${id}` : id;
    }
    payloads.push(current);
    this.ids.clear();
    return payloads;
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
  private readonly outboxChannel: Channel;
  private readonly settledChannel: Channel;
  /** This process's jobs-queued payload: its own hub has woken its worker already and skips the echo. */
  protected readonly jobsQueuedPayload = `${JOBS_QUEUED_PREFIX}${randomBytes(6).toString('hex')}`;

  constructor(db: Queryable, options: WakeupsOptions = {}) {
    const interval = options.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;
    this.outboxChannel = new Channel(db, OUTBOX_CHANNEL, interval, options.logger);
    this.settledChannel = new Channel(db, JOB_SETTLED_CHANNEL, interval, options.logger);
  }

  /** Committed outbox events may be pending: relays look now rather than at their next poll. */
  outbox(): void {
    this.outboxChannel.wake();
  }

  /**
   * New jobs were committed: idle workers claim now rather than at their next poll, and
   * relays publish the jobs' `created` events. One notification carries both.
   */
  jobsQueued(): void {
    this.outboxChannel.wake(this.jobsQueuedPayload);
  }

  /**
   * Job `jobId` may have settled: its long-polls re-read it now. Settling writes the job's
   * events too, so relays are woken as well.
   */
  jobSettled(jobId: string): void {
    this.settledChannel.wake(jobId);
    this.outboxChannel.wake();
  }

  /** Resolves once every wake-up asked for so far has been sent. */
  async flush(): Promise<void> {
    await Promise.all([this.outboxChannel.flush(), this.settledChannel.flush()]);
  }

  /** Sends what is queued, then ignores further wake-ups (before the pool closes). */
  async close(): Promise<void> {
    await Promise.all([this.outboxChannel.close(), this.settledChannel.close()]);
  }
}
