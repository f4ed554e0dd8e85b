import pg from 'pg';
import type { Logger } from 'pino';
import { JOB_SETTLED_CHANNEL } from '../events/wakeups.js';

type Waiter = () => void;

/**
 * Wakes long-polling readers when a job settles. One LISTEN connection per process
 * serves every waiter. Whoever settles a job notifies after its commit
 * (`Wakeups.jobSettled`, src/events/wakeups.ts) with a comma-separated list of job ids.
 * A settlement that sends no wake-up (another process's notification lost, a settlement
 * inside a caller's transaction) is seen on the waiter's own re-read interval.
 */
export class JobSettledListener {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private readonly waiters = new Map<string, Set<Waiter>>();
  private closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly logger?: Logger,
  ) {}

  /** Resolves when job `id` is announced as settled, or after `ms`. */
  async wait(id: string, ms: number): Promise<void> {
    void this.ensureConnected();
    await new Promise<void>((resolve) => {
      const set = this.waiters.get(id) ?? new Set<Waiter>();
      this.waiters.set(id, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  private ensureConnected(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.connectionString,
        application_name: 'onejob-listen',
      });
      client.on('notification', (msg) => {
        if (!msg.payload || this.waiters.size === 0) return;
        for (const id of msg.payload.split(',')) {
          for (const wake of [...(this.waiters.get(id) ?? [])]) wake();
        }
      });
      client.on('error', (error) => {
        this.logger?.warn({ err: error }, 'job listener connection lost');
        if (this.client === client) this.client = undefined;
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${JOB_SETTLED_CHANNEL}`);
        if (this.closed) await client.end();
        else this.client = client;
      } catch (error) {
        this.logger?.debug({ err: error }, 'job listener could not connect');
        await client.end().catch(() => undefined);
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.waiters.values()) for (const wake of [...set]) wake();
    await this.connecting;
    await this.client?.end().catch(() => undefined);
    this.client = undefined;
  }
}
