// One LISTEN connection per process. The relay's publisher loops and the long-polls of
// `jobs.wait` subscribe here; `Wakeups` (the sending half, after commit, never inside a
// job's transaction) is what the engine's writers call. The connection is opened on the
// first subscription, re-opened after it drops, and ended when nothing listens.
import type pg from 'pg';
import type { Logger } from 'pino';
import { connectToPrimary, HostSelector } from '../db/connectToPrimary.js';
import { DatabaseOutage } from '../db/databaseOutage.js';
import { parseHostList } from '../db/hostList.js';
import {
  JOB_SETTLED_CHANNEL,
  JOBS_QUEUED_PREFIX,
  OUTBOX_CHANNEL,
  Wakeups,
  type WakeupsOptions,
} from './wakeups.js';

/** Called with a notification's payload, or with null once listening (re)starts: look now. */
export type NotificationHandler = (payload: string | null) => void;

/** A worker's claim loop, told new jobs may be waiting; false when it has no free slot. */
export type JobWatcher = () => boolean;

export interface NotificationHubOptions extends WakeupsOptions {
  /** The hub's own connection when known (one that takes no slot of the pool); else a pool client. */
  connectionString?: string | undefined;
  /** Wait before reconnecting a dropped connection. Default 500 ms. */
  reconnectMs?: number;
}

type Connection = Pick<pg.Client, 'query' | 'on'> & { end(): Promise<void> };

export class NotificationHub extends Wakeups {
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  private readonly jobWaiters = new Map<string, Set<() => void>>();
  private readonly jobWatchers: JobWatcher[] = [];
  private nextWatcher = 0;
  private watchingJobs: Promise<() => Promise<void>> | undefined;
  private connection: Connection | undefined;
  private connecting: Promise<void> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly logger: Logger | undefined;
  private readonly outage: DatabaseOutage | undefined;
  private hosts: HostSelector | undefined;
  private readonly reconnectMs: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: NotificationHubOptions = {},
  ) {
    super(pool, options);
    this.logger = options.logger;
    this.outage =
      options.logger && new DatabaseOutage(options.logger, 'notification listener (polling meanwhile)');
    this.reconnectMs = options.reconnectMs ?? 500;
  }

  /**
   * Calls `handler` on every notification on `channel` until the returned function is
   * called. Resolves once the channel is listened to (or the first try to connect failed:
   * the hub keeps trying, and the caller's poll covers the gap).
   */
  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    const set = this.handlers.get(channel) ?? new Set<NotificationHandler>();
    const isNew = set.size === 0;
    this.handlers.set(channel, set);
    set.add(handler);
    if (isNew && this.connection) {
      await this.connection.query(`LISTEN ${channel}`).catch((error) => this.dropped(error));
    } else await this.connect();
    return async () => {
      set.delete(handler);
      if (set.size > 0 || this.handlers.get(channel) !== set) return;
      this.handlers.delete(channel);
      if (this.handlers.size === 0) await this.disconnect();
      else await this.connection?.query(`UNLISTEN ${channel}`).catch(() => undefined);
    };
  }

  /**
   * Calls `watcher` when new jobs may be claimable: at once for jobs this process committed
   * (`jobsQueued`), on another process's jobs-queued notification, and, every watcher, when
   * listening (re)starts. One watcher is woken per announcement, the next in turn that has
   * a free slot: an idle worker of this process claims, the others stay asleep. Settlements
   * and published events notify the relays' channel without the jobs-queued payload and
   * wake no watcher. Resolves once listening, to the function that stops it.
   */
  async listenForJobs(watcher: JobWatcher): Promise<() => Promise<void>> {
    this.jobWatchers.push(watcher);
    // A handler of its own per subscription: a channel's handlers are a set, so an unlisten
    // still in flight would otherwise remove the one a new subscription just added.
    this.watchingJobs ??= this.listen(OUTBOX_CHANNEL, (payload) => this.onOutbox(payload));
    await this.watchingJobs;
    return async () => {
      const i = this.jobWatchers.indexOf(watcher);
      if (i >= 0) this.jobWatchers.splice(i, 1);
      const watching = this.watchingJobs;
      if (this.jobWatchers.length > 0 || !watching) return;
      this.watchingJobs = undefined;
      await (await watching)();
    };
  }

  /** New jobs were committed here: one idle watcher of this process claims now, others hear the notification. */
  override jobsQueued(): void {
    super.jobsQueued();
    this.wakeOneWatcher();
  }

  /** Resolves when job `id` is announced as settled, or after `ms`. */
  async waitForJob(id: string, ms: number): Promise<void> {
    if (!this.handlers.has(JOB_SETTLED_CHANNEL)) void this.listen(JOB_SETTLED_CHANNEL, this.onSettled);
    await new Promise<void>((resolve) => {
      const set = this.jobWaiters.get(id) ?? new Set<() => void>();
      this.jobWaiters.set(id, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.jobWaiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  /**
   * Job `jobId` may have settled (called after commit): its waiters in this process
   * re-read it at once, and every other process hears it through the notification.
   */
  override jobSettled(jobId: string): void {
    super.jobSettled(jobId);
    for (const wake of [...(this.jobWaiters.get(jobId) ?? [])]) wake();
  }

  /** Sends what is queued, wakes every waiter, and ends the connection. */
  override async close(): Promise<void> {
    await super.close();
    this.closed = true;
    for (const set of this.jobWaiters.values()) for (const wake of [...set]) wake();
    this.handlers.clear();
    this.jobWatchers.length = 0;
    this.watchingJobs = undefined;
    await this.disconnect();
  }

  private onOutbox(payload: string | null): void {
    // null: listening (re)started and a notification may have been missed: every watcher looks.
    if (payload === null) for (const watch of [...this.jobWatchers]) watch();
    // This process's own announcement woke its watcher when it was made.
    else if (payload.startsWith(JOBS_QUEUED_PREFIX) && payload !== this.jobsQueuedPayload)
      this.wakeOneWatcher();
  }

  private wakeOneWatcher(): void {
    const n = this.jobWatchers.length;
    for (let i = 0; i < n; i += 1) {
      const k = (this.nextWatcher + i) % n;
      if (this.jobWatchers[k]!()) {
        this.nextWatcher = (k + 1) % n;
        return;
      }
    }
  }

  private readonly onSettled: NotificationHandler = (payload) => {
    if (this.jobWaiters.size === 0) return;
    // null: listening (re)started and a notification may have been missed: every waiter re-reads.
    const ids = payload === null ? [...this.jobWaiters.keys()] : payload.split(',');
    for (const id of ids) for (const wake of [...(this.jobWaiters.get(id) ?? [])]) wake();
  };

  private connect(): Promise<void> {
    if (this.connection || this.closed || this.handlers.size === 0) return Promise.resolve();
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    let connection: Connection | undefined;
    try {
      connection = await this.newConnection();
      connection.on('notification', (msg) => {
        for (const handler of [...(this.handlers.get(msg.channel) ?? [])]) handler(msg.payload ?? '');
      });
      connection.on('error', (error) => {
        if (this.connection === connection) this.dropped(error);
      });
      const listened = new Set(this.handlers.keys());
      for (const channel of listened) await connection.query(`LISTEN ${channel}`);
      if (this.closed || this.handlers.size === 0) {
        await connection.end().catch(() => undefined);
        return;
      }
      this.connection = connection;
      // Channels first subscribed while this connection was being opened.
      for (const channel of this.handlers.keys())
        if (!listened.has(channel)) await connection.query(`LISTEN ${channel}`);
      this.outage?.succeeded();
      // Whatever was notified while no connection listened is lost: every subscriber looks now.
      for (const set of this.handlers.values()) for (const handler of [...set]) handler(null);
    } catch (error) {
      this.outage?.failed(error, 'notification listener cannot connect; polling meanwhile', 0);
      await connection?.end().catch(() => undefined);
      this.scheduleReconnect();
    }
  }

  private async newConnection(): Promise<Connection> {
    if (this.options.connectionString) {
      // A host list is tried like the pool's: the LISTEN session is never opened on a standby.
      // One selector across reconnections: after a failover the new primary is tried first.
      this.hosts ??= new HostSelector(parseHostList(this.options.connectionString));
      return connectToPrimary(this.hosts, {
        application_name: 'onejob-listen',
        connectionTimeoutMillis: 5_000,
        // A primary that vanishes without closing the socket is noticed, and the hub moves on.
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
      });
    }
    const client = await this.pool.connect();
    let released = false;
    return Object.assign(client, {
      end: async () => {
        if (released) return;
        released = true;
        client.release(true);
      },
    });
  }

  private dropped(error: unknown): void {
    this.logger?.warn({ err: error }, 'notification listener connection lost');
    const connection = this.connection;
    this.connection = undefined;
    void connection?.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer || this.handlers.size === 0) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, this.reconnectMs);
    this.reconnectTimer.unref();
  }

  private async disconnect(): Promise<void> {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    await this.connecting;
    const connection = this.connection;
    this.connection = undefined;
    await connection?.end().catch(() => undefined);
  }
}
