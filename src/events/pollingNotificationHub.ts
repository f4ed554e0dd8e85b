// The notification hub for a transaction pooler without a direct URL: LISTEN cannot work
// there (the pooler hands the LISTEN's session to other clients between transactions, and
// PgBouncer drops its notifications), so every subscriber is told "look now" on a fixed
// interval instead, as when a LISTEN connection (re)starts. Long-polls re-read their job,
// relays run a pass; the worker's claim loop polls on its own (`worker.pollMs`). Wake-ups
// made in this process still reach its own long-polls at once.
import type pg from 'pg';
import { type NotificationHandler, NotificationHub, type NotificationHubOptions } from './notificationHub.js';

export interface PollingNotificationHubOptions extends NotificationHubOptions {
  /** How often every subscriber is told to look. */
  pollMs: number;
}

export class PollingNotificationHub extends NotificationHub {
  private readonly subscribers = new Map<string, Set<NotificationHandler>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly pollMs: number;

  constructor(pool: pg.Pool, options: PollingNotificationHubOptions) {
    super(pool, options);
    this.pollMs = options.pollMs;
  }

  /** Subscribes `handler` to the interval's "look now" (a null payload); opens no connection. */
  override async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    const set = this.subscribers.get(channel) ?? new Set<NotificationHandler>();
    this.subscribers.set(channel, set);
    set.add(handler);
    this.startTimer();
    return async () => {
      set.delete(handler);
      if (set.size === 0 && this.subscribers.get(channel) === set) this.subscribers.delete(channel);
      if (this.subscribers.size === 0) this.stopTimer();
    };
  }

  override async close(): Promise<void> {
    this.stopped = true;
    this.stopTimer();
    this.subscribers.clear();
    await super.close();
  }

  private startTimer(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      for (const set of [...this.subscribers.values()]) for (const handler of [...set]) handler(null);
    }, this.pollMs);
    this.timer.unref();
  }

  private stopTimer(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
