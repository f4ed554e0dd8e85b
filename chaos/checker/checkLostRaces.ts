// A `lost_race` attempt's result never reaches its job: the job does not name it, no
// `succeeded` event names it, and the job's result is not an answer that was sent to it.
import type { ChaosHistory, DbSnapshot } from '../history/types.js';
import { type CheckResult, result, skipped, type Violation } from './checkResult.js';

const CHECK = 'lost_race_result_never_reaches_job';

export function checkLostRaces(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  if (!history.features.worker) return skipped(CHECK, 'no worker ran attempts in this build');
  const violations: Violation[] = [];
  const jobs = new Map(snapshot.jobs.map((j) => [j.id, j]));
  const losers = snapshot.attempts.filter((a) => a.state === 'lost_race');
  const loserIds = new Set(losers.map((a) => a.id));
  const answersTo = new Map<string, string[]>();
  for (const r of history.inferenceRequests ?? []) {
    if (!r.answerId) continue;
    answersTo.set(r.attemptId, [...(answersTo.get(r.attemptId) ?? []), r.answerId]);
  }
  let withAnswer = 0;
  for (const loser of losers) {
    const job = jobs.get(loser.jobId);
    if (!job) continue;
    if (job.completedBy === loser.id)
      violations.push({
        check: CHECK,
        detail: `job ${job.id} names attempt #${loser.n} as its winner, but that attempt lost the race`,
        refs: { jobId: job.id, attemptId: loser.id },
      });
    const answers = answersTo.get(loser.id) ?? [];
    if (answers.length) withAnswer++;
    if (job.resultAnswerId && answers.includes(job.resultAnswerId))
      violations.push({
        check: CHECK,
        detail: `job ${job.id} holds answer ${job.resultAnswerId}, which attempt #${loser.n} (${loser.provider ?? '?'}) received and which lost the race`,
        refs: { jobId: job.id, attemptId: loser.id, answerId: job.resultAnswerId },
      });
  }
  for (const e of snapshot.outbox)
    if (e.type === 'onejob.job.succeeded' && e.completedBy && loserIds.has(e.completedBy))
      violations.push({
        check: CHECK,
        detail: `succeeded event ${e.id} of job ${e.subject} names attempt ${e.completedBy}, which lost the race`,
        refs: { jobId: e.subject, eventId: e.id },
      });
  return result(CHECK, losers.length, violations, { lostRacesWithAnAnswer: withAnswer });
}
