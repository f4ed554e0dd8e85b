// Completion by compare-and-swap: a job has at most one winning attempt, and the job row
// names exactly that attempt in completed_by.
import type { ChaosHistory, DbSnapshot } from '../history/types.js';
import { type CheckResult, groupBy, result, skipped, type Violation } from './checkResult.js';

export function checkOneWinnerPerJob(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  const check = 'one_winner_per_job';
  if (!history.features.worker) return skipped(check, 'no worker ran attempts in this build');
  const violations: Violation[] = [];
  const byJob = groupBy(snapshot.attempts, (a) => a.jobId);
  for (const job of snapshot.jobs) {
    const attempts = byJob.get(job.id) ?? [];
    const winners = attempts.filter((a) => a.state === 'succeeded');
    if (winners.length > 1) {
      violations.push({
        check,
        detail: `job ${job.id} has ${winners.length} succeeded attempts: ${winners.map((w) => `#${w.n}`).join(', ')}`,
        refs: { jobId: job.id },
      });
    }
    const winner = winners[0];
    if (job.state === 'succeeded' && job.completedBy === null) {
      violations.push({
        check,
        detail: `job ${job.id} succeeded with no completed_by`,
        refs: { jobId: job.id },
      });
    }
    if (job.completedBy !== null && job.state !== 'succeeded') {
      violations.push({
        check,
        detail: `job ${job.id} is ${job.state} yet completed_by names ${job.completedBy}`,
        refs: { jobId: job.id },
      });
    }
    if (job.completedBy !== null && winner?.id !== job.completedBy) {
      violations.push({
        check,
        detail: `job ${job.id} completed_by ${job.completedBy} is not its succeeded attempt (${winner ? winner.id : 'none'})`,
        refs: { jobId: job.id, completedBy: job.completedBy },
      });
    }
    if (winner && job.completedBy === null) {
      violations.push({
        check,
        detail: `attempt #${winner.n} of job ${job.id} succeeded but the job names no winner`,
        refs: { jobId: job.id, attemptId: winner.id },
      });
    }
  }
  return result(check, snapshot.jobs.length, violations);
}
