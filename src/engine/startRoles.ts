// The background roles of an engine (worker, relay), started and stopped as a group:
// `onejob.start()` in a library, `onejob serve --role` in the service.

import { startCostPoster } from '../ledger/startCostPoster.js';
import { type Relay, type RelayOptions, startRelay } from '../outbox/startRelay.js';
import type { WorkerOptions } from '../worker/worker.js';
import type { RelayDeps } from './engineDeps.js';
import type { AttemptsHandle } from './handles/attemptsHandle.js';

/**
 * A role `onejob.start()` can run in this process: `worker` runs attempts, `relay` publishes outbox events.
 */
export type BackgroundRole = 'worker' | 'relay';
/**
 * Every background role, the default of `start({ roles })`.
 *
 * @example
 * ```ts
 * import { BACKGROUND_ROLES } from 'onejob';
 *
 * const roles = process.env.ROLES?.split(',').filter((r) => BACKGROUND_ROLES.includes(r as never));
 * ```
 */
export const BACKGROUND_ROLES: readonly BackgroundRole[] = ['worker', 'relay'];

/**
 * What `onejob.start()` runs: the roles, and options for the worker and the relay.
 *
 * Without `config.outbox.publishers` or `relay.publishers`, the relay runs the log publisher,
 * which prints every event as one JSON line on stdout. Start `{ roles: ['worker'] }` or name
 * your publishers to turn it off.
 *
 * @example
 * ```ts
 * await onejob.start({ roles: ['worker'], worker: { concurrency: 8 } });
 * ```
 */
export interface StartOptions {
  /** Default: both. */
  roles?: readonly BackgroundRole[];
  worker?: WorkerOptions;
  relay?: RelayOptions;
}

/** The roles `onejob.start()` started, and how to stop them. */
export interface RunningRoles {
  readonly roles: readonly BackgroundRole[];
  /** The relay, when it runs (its publishers and counters). */
  readonly relay: Relay | undefined;
  /** Stops the roles, last started first: running attempts drain, the relay finishes its batch. */
  stop(): Promise<void>;
}

/** What the roles need of the engine: the relay's dependencies and a way to start a worker. */
export type RolesDeps = RelayDeps & { readonly attempts: Pick<AttemptsHandle, 'startWorker'> };

export async function startRoles(onejob: RolesDeps, options: StartOptions = {}): Promise<RunningRoles> {
  const roles = options.roles ?? BACKGROUND_ROLES;
  for (const role of roles)
    if (!BACKGROUND_ROLES.includes(role)) throw new TypeError(`unknown role "${role}"`);
  const stops: (() => Promise<void>)[] = [];
  let relay: Relay | undefined;
  try {
    if (roles.includes('worker')) {
      // Finished attempts' costs go to the ledger (idempotent per attempt). The poster stops
      // after the worker (stops run last started first) and posts once more as it stops:
      // attempts that finish while the worker drains have their cost posted by this process.
      const stopCosts = startCostPoster(onejob.pool, onejob.config, {
        onError: (error) => onejob.logger.warn({ err: error }, 'posting attempt costs failed; retrying'),
        metrics: onejob.metrics,
        onFailure: (f) => onejob.logger.warn(f, 'an attempt cost was refused; it is skipped until retried'),
      });
      stops.push(stopCosts);
      const worker = onejob.attempts.startWorker(options.worker);
      stops.push(() => worker.stop());
    }
    if (roles.includes('relay')) {
      const started = await startRelay(onejob, options.relay);
      relay = started;
      stops.push(() => started.stop());
    }
  } catch (error) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    roles: [...roles],
    relay,
    stop() {
      stopping ??= (async () => {
        for (const stop of stops.reverse()) await stop();
      })();
      return stopping;
    },
  };
}
