// Hedges included, a job has at most one winner: at most one succeeded attempt and at
// most one `succeeded` event, the event names the attempt the job names, and the job's
// result is the answer the provider sent to that attempt (not to a sibling that ran at
// the same time). Only pure jobs have siblings that really overlap, so they are counted.
import type { ChaosHistory, DbSnapshot, SnapshotAttempt } from '../history/types.js';
import { type CheckResult, groupBy, result, skipped, type Violation } from './checkResult.js';

const CHECK = 'one_winner_per_job_hedges_included';

/** Two attempts of one job were live at the same moment. */
function overlapped(attempts: SnapshotAttempt[]): boolean {
  const sorted = [...attempts].sort((a, b) => a.startedAt - b.startedAt);
  for (let i = 1; i < sorted.length; i++) {
    for (const earlier of sorted.slice(0, i))
      if (sorted[i]!.startedAt < (earlier.finishedAt ?? Number.POSITIVE_INFINITY)) return true;
  }
  return false;
}

export function checkHedgeWinners(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  if (!history.features.worker) return skipped(CHECK, 'no worker ran attempts in this build');
  const violations: Violation[] = [];
  const attempts = groupBy(snapshot.attempts, (a) => a.jobId);
  const succeededEvents = groupBy(
    snapshot.outbox.filter((e) => e.type === 'onejob.job.succeeded'),
    (e) => e.subject,
  );
  // Which attempt each answer was sent to.
  const answeredTo = new Map<string, string>();
  for (const r of history.inferenceRequests ?? []) if (r.answerId) answeredTo.set(r.answerId, r.attemptId);
  let hedged = 0;
  let overlapping = 0;
  for (const job of snapshot.jobs) {
    const own = attempts.get(job.id) ?? [];
    if (own.some((a) => a.origin === 'hedge')) hedged++;
    if (own.length > 1 && overlapped(own)) overlapping++;
    const winners = own.filter((a) => a.state === 'succeeded');
    if (winners.length > 1)
      violations.push({
        check: CHECK,
        detail: `job ${job.id} has ${winners.length} succeeded attempts: ${winners.map((w) => `#${w.n} ${w.provider ?? ''} (${w.origin ?? ''})`).join(', ')}`,
        refs: { jobId: job.id },
      });
    const events = succeededEvents.get(job.id) ?? [];
    if (events.length > 1)
      violations.push({
        check: CHECK,
        detail: `job ${job.id} has ${events.length} succeeded events, naming ${events.map((e) => e.completedBy ?? '?').join(', ')}`,
        refs: { jobId: job.id },
      });
    for (const e of events)
      if (e.completedBy !== undefined && e.completedBy !== job.completedBy)
        violations.push({
          check: CHECK,
          detail: `job ${job.id}: succeeded event ${e.id} names attempt ${e.completedBy}, the job names ${job.completedBy}`,
          refs: { jobId: job.id, eventId: e.id },
        });
    if (job.resultAnswerId) {
      const to = answeredTo.get(job.resultAnswerId);
      if (to !== undefined && to !== job.completedBy)
        violations.push({
          check: CHECK,
          detail: `job ${job.id} holds answer ${job.resultAnswerId}, which was sent to attempt ${to}, not to its winner ${job.completedBy}`,
          refs: { jobId: job.id, answerId: job.resultAnswerId },
        });
    }
  }
  return result(CHECK, snapshot.jobs.length, violations, {
    hedgedJobs: hedged,
    jobsWithOverlappingAttempts: overlapping,
  });
}
