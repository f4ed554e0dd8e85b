// A loop that meets an unreachable database (a failover, a restart) waits and tries again.
// This says how long to wait, growing while the outage lasts, and keeps the log to one
// line when the outage begins and one when it ends, instead of one per pass.
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from './sqlstate.js';

const FIRST_WAIT_MS = 100;
const LONGEST_WAIT_MS = 2_000;

export class DatabaseOutage {
  private failures = 0;
  private since = 0;

  /** `what` names the loop in the log, e.g. "claiming" or "outbox relay". */
  constructor(
    private readonly log: Logger,
    private readonly what: string,
  ) {}

  /** True while the last pass met an unreachable database. */
  get ongoing(): boolean {
    return this.failures > 0;
  }

  /**
   * A pass failed with `error`. An unreachable database is logged once per outage (then at
   * debug) and answered with a wait that doubles from 100 ms to 2 s; anything else is
   * logged as `message` at warn and answered with `otherwiseMs`.
   */
  failed(error: unknown, message: string, otherwiseMs: number, level: 'warn' | 'error' = 'warn'): number {
    if (!isDatabaseUnavailable(error)) {
      this.log[level]({ err: error }, message);
      return otherwiseMs;
    }
    this.failures++;
    if (this.failures === 1) {
      this.since = Date.now();
      this.log.warn({ err: error }, `database unavailable; ${this.what} paused until it answers`);
    } else
      this.log.debug({ err: error, failures: this.failures }, `database still unavailable (${this.what})`);
    return Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** (this.failures - 1));
  }

  /** A pass went through: ends an outage, saying so once. */
  succeeded(): void {
    if (this.failures === 0) return;
    this.log.info(
      { failedPasses: this.failures, downMs: Date.now() - this.since },
      `database reachable again; ${this.what} resumed`,
    );
    this.failures = 0;
  }
}
