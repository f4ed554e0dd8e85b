// Tells running code attempts when to stop: one query per interval for all of this
// process's in-flight code attempts, and only while there are any.
import type { Queryable } from '../../db/createPool.js';
import { periodicTask } from '../../time/periodicTask.js';

// An attempt should stop when it can no longer win: it was abandoned, failed or lost, or
// its job was completed by another attempt or cancelled. `unknown` is not a reason: a
// timeout has its own timer, and reconciliation runs unknown attempts again on purpose.
const STOPPED_SQL = `
SELECT a.id, a.state AS "attemptState", j.state AS "jobState", j.completed_by AS "completedBy"
FROM onejob.attempts a JOIN onejob.jobs j ON j.id = a.job_id
WHERE a.id = ANY($1::uuid[])
  AND (a.state NOT IN ('running', 'unknown') OR j.state = 'cancelled' OR (j.completed_by IS NOT NULL AND j.completed_by <> a.id))`;

export const WATCH_INTERVAL_MS = 250;

export interface AttemptWatch {
  /** Calls `stop(reason)` once the attempt can no longer win; returns the unwatch function. */
  watch(attemptId: string, stop: (reason: string) => void): () => void;
  close(): void;
}

export function createAttemptWatch(
  db: Queryable,
  onError: (error: unknown) => void,
  intervalMs = WATCH_INTERVAL_MS,
): AttemptWatch {
  const watched = new Map<string, (reason: string) => void>();
  const tick = async () => {
    if (watched.size === 0) return;
    try {
      const { rows } = await db.query<{
        id: string;
        attemptState: string;
        jobState: string;
        completedBy: string | null;
      }>(STOPPED_SQL, [[...watched.keys()]]);
      for (const r of rows) {
        const stop = watched.get(r.id);
        watched.delete(r.id);
        stop?.(
          r.completedBy
            ? 'another attempt completed the job'
            : r.jobState === 'cancelled'
              ? 'the job was cancelled'
              : `the attempt is ${r.attemptState}`,
        );
      }
    } catch (error) {
      onError(error);
    }
  };
  // Runs only while something is watched; the timer never keeps the process alive.
  const task = periodicTask(intervalMs, tick, { unref: true, idle: () => watched.size === 0 });

  return {
    watch(attemptId, stop) {
      watched.set(attemptId, stop);
      task.start();
      return () => {
        watched.delete(attemptId);
      };
    },
    close() {
      void task.stop();
      watched.clear();
    },
  };
}
