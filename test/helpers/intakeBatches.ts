// Batches one group-commit path has sent, read from the engine's metrics
// (onejob_intake_batch_size, onejob_intake_batch_fallbacks_total and the two batch timings,
// labelled by path).
import type { Onejob } from '../../src/createOnejob.js';

export type IntakePath = 'jobs' | 'reads' | 'transfers' | 'deliveries';

export interface BatchCounts {
  statements: number;
  requests: number;
  fallbacks: number;
}

/** Batches sent so far on `path`, the requests they carried, and how many fell back. */
export async function intakeBatches(metrics: Onejob['metrics'], path: IntakePath): Promise<BatchCounts> {
  const { values } = await metrics.intakeBatches.get();
  const fallbacks =
    (await metrics.intakeFallbacks.get()).values.find((v) => v.labels.path === path)?.value ?? 0;
  const pick = (suffix: string) =>
    values.find((v) => v.metricName === `onejob_intake_batch_size_${suffix}` && v.labels.path === path);
  return { statements: pick('count')?.value ?? 0, requests: pick('sum')?.value ?? 0, fallbacks };
}

/** The same counts since `before`. */
export async function intakeBatchesSince(
  metrics: Onejob['metrics'],
  path: IntakePath,
  before: BatchCounts,
): Promise<BatchCounts> {
  const now = await intakeBatches(metrics, path);
  return {
    statements: now.statements - before.statements,
    requests: now.requests - before.requests,
    fallbacks: now.fallbacks - before.fallbacks,
  };
}

/** Batches on `path` whose queue wait and database time were recorded, with their total time. */
export async function timedBatches(
  metrics: Onejob['metrics'],
  path: IntakePath,
): Promise<{ waited: number; took: number; tookSeconds: number }> {
  const pick = async (h: Onejob['metrics']['intakeBatchSeconds'], name: string, suffix: string) =>
    (await h.get()).values.find((v) => v.metricName === `${name}_${suffix}` && v.labels.path === path)
      ?.value ?? 0;
  return {
    waited: await pick(metrics.intakeWaitSeconds, 'onejob_intake_batch_wait_seconds', 'count'),
    took: await pick(metrics.intakeBatchSeconds, 'onejob_intake_batch_seconds', 'count'),
    tookSeconds: await pick(metrics.intakeBatchSeconds, 'onejob_intake_batch_seconds', 'sum'),
  };
}
