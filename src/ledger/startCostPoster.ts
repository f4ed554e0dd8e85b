// The worker's cost poster: a pass (postPendingAttemptCosts) on a timer, and one more as it stops.
import type pg from 'pg';
import type { OnejobConfig } from '../config/types.js';
import { periodicTask } from '../time/periodicTask.js';
import { type CostPosterOptions, postPendingAttemptCosts } from './postPendingAttemptCosts.js';

export interface CostPosterTimerOptions extends CostPosterOptions {
  /** Told about a pass that failed as a whole (the database, a deadlock); the next pass tries again. */
  onError: (error: unknown) => void;
  /** Between passes. Default 1 s. */
  intervalMs?: number;
}

/**
 * Posts pending attempt costs every `intervalMs` until stopped. Stopping posts once more:
 * stopped after the worker has drained, it posts the costs of the attempts that finished
 * meanwhile instead of leaving them to the next worker that starts.
 */
export function startCostPoster(
  pool: pg.Pool,
  config: OnejobConfig,
  options: CostPosterTimerOptions,
): () => Promise<void> {
  const { onError, intervalMs = 1_000, ...pass } = options;
  const post = async () => {
    await postPendingAttemptCosts(pool, config, pass).catch(onError);
  };
  const task = periodicTask(intervalMs, post);
  task.start();
  let stopped = false;
  return async () => {
    if (stopped) return;
    stopped = true;
    await task.stop();
    await post();
  };
}
