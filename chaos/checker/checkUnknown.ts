// Unknown outcomes are never silently dropped: every job whose outcome is unknown is
// listed for an operator, and a job is only unknown while some attempt of it is unknown
// (otherwise nothing will ever resolve it).
import type { ChaosHistory, DbSnapshot } from '../history/types.js';
import { type CheckResult, groupBy, result, skipped, type Violation } from './checkResult.js';

export function checkUnknownResolvedOrListed(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  const check = 'unknown_resolved_or_listed';
  if (!history.features.worker) return skipped(check, 'no worker ran attempts in this build');
  const violations: Violation[] = [];
  const attempts = groupBy(snapshot.attempts, (a) => a.jobId);
  const listed: string[] = [];
  const byOperation: Record<string, number> = {};
  for (const job of snapshot.jobs) {
    const own = attempts.get(job.id) ?? [];
    const unknownAttempts = own.filter((a) => a.state === 'unknown');
    if (job.state === 'unknown' || unknownAttempts.length > 0) {
      listed.push(job.id);
      byOperation[job.operation] = (byOperation[job.operation] ?? 0) + 1;
    }
    if (job.state === 'unknown' && unknownAttempts.length === 0)
      violations.push({
        check,
        detail: `job ${job.id} is unknown but none of its ${own.length} attempts is: nothing can resolve it`,
        refs: { jobId: job.id },
      });
  }
  const states: Record<string, number> = {};
  for (const job of snapshot.jobs) states[job.state] = (states[job.state] ?? 0) + 1;
  return result(check, snapshot.jobs.length, violations, {
    unknownJobs: listed,
    unknownByOperation: byOperation,
    jobStates: states,
  });
}
