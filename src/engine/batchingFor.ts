// Group commit (src/db/groupCommit.ts): one `intake` config sizes every batched path, and
// every path reports to the same metrics under its own label.
import type { Logger } from 'pino';
import type { OnejobConfig } from '../config/types.js';
import type { GroupCommitOptions } from '../db/groupCommit.js';
import type { Metrics } from '../observability/createMetrics.js';

/** `jobs`: intake (creates and replays); `reads`: reads of jobs by id. */
export type BatchedPath = 'jobs' | 'reads' | 'transfers' | 'deliveries';

/** A batcher's options: sizes from the config, and metrics and a warning per failed batch. */
export type BatchOptions = GroupCommitOptions & {
  onBatch(batch: { size: number; fellBack: boolean; error?: unknown }): void;
};

export type Batching = (path: BatchedPath) => BatchOptions;

export function batchingFor(config: OnejobConfig, metrics: Metrics, logger: Logger): Batching {
  return (path) => ({
    maxBatchSize: config.intake?.maxBatchSize,
    maxWaitMs: config.intake?.maxBatchWaitMs,
    maxInFlight: config.intake?.maxBatchesInFlight,
    observe: ({ waitedMs, tookMs }: { waitedMs: number; tookMs: number }) => {
      metrics.intakeWaitSeconds.observe({ path }, waitedMs / 1000);
      metrics.intakeBatchSeconds.observe({ path }, tookMs / 1000);
    },
    onBatch: ({ size, fellBack, error }) => {
      metrics.intakeBatches.observe({ path }, size);
      if (fellBack) {
        metrics.intakeFallbacks.inc({ path });
        logger.warn({ err: error, size, path }, 'batch failed; its requests went one at a time');
      }
    },
  });
}
