// Every finished attempt's cost is posted to the ledger exactly once: winners, race
// losers, aborted calls and failures alike. A cost transfer is attributed to the attempt
// its id names (`attempt-cost:<attempt id>`, with or without a suffix), so a second
// posting under another id is counted as a second posting, not missed.
import type { ChaosHistory, DbSnapshot, SnapshotCostTransfer } from '../history/types.js';
import { type CheckResult, groupBy, result, skipped, type Violation } from './checkResult.js';

const CHECK = 'attempt_cost_posted_once';
export const FINISHED = new Set(['succeeded', 'failed', 'lost_race', 'abandoned']);
const PREFIX = 'attempt-cost:';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The attempt a cost transfer names, or undefined. */
export function costAttemptOf(t: SnapshotCostTransfer): string | undefined {
  if (!t.id.startsWith(PREFIX)) return undefined;
  return UUID.exec(t.id.slice(PREFIX.length))?.[0].toLowerCase();
}

export function checkAttemptCosts(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  if (!history.features.worker) return skipped(CHECK, 'no worker ran attempts in this build');
  if (!history.features.ledger || snapshot.costTransfers === undefined)
    return skipped(CHECK, 'the ledger is not available in this build');
  const violations: Violation[] = [];
  const byAttempt = groupBy(
    snapshot.costTransfers.filter((t) => costAttemptOf(t) !== undefined),
    (t) => costAttemptOf(t)!,
  );
  const attempts = new Map(snapshot.attempts.map((a) => [a.id, a]));
  const costed = snapshot.attempts.filter((a) => (a.costMicros ?? 0) > 0 && FINISHED.has(a.state));
  const byState: Record<string, number> = {};
  for (const a of costed) {
    byState[a.state] = (byState[a.state] ?? 0) + 1;
    const posted = byAttempt.get(a.id) ?? [];
    if (posted.length !== 1)
      violations.push({
        check: CHECK,
        detail: `attempt #${a.n} of job ${a.jobId} (${a.state}, ${a.provider ?? '?'}) cost ${a.costMicros} and was posted ${posted.length} times${posted.length ? `: ${posted.map((t) => t.id).join(', ')}` : ''}`,
        refs: { jobId: a.jobId, attemptId: a.id, postings: posted.length },
      });
    for (const t of posted)
      if (t.amount !== a.costMicros)
        violations.push({
          check: CHECK,
          detail: `transfer ${t.id} posts ${t.amount} for attempt #${a.n} of job ${a.jobId}, which cost ${a.costMicros}`,
          refs: { jobId: a.jobId, attemptId: a.id, transferId: t.id },
        });
  }
  for (const [attemptId, posted] of byAttempt) {
    const a = attempts.get(attemptId);
    if (!a || !FINISHED.has(a.state) || !((a.costMicros ?? 0) > 0))
      violations.push({
        check: CHECK,
        detail: `${posted.length} cost transfer(s) for attempt ${attemptId}, which ${a ? `is ${a.state} with cost ${a.costMicros}` : 'does not exist'}`,
        refs: { attemptId },
      });
  }
  for (const t of snapshot.costTransfers)
    if (costAttemptOf(t) === undefined)
      violations.push({
        check: CHECK,
        detail: `transfer ${t.id} moves ${t.amount} ${t.currency} between cost accounts but names no attempt`,
        refs: { transferId: t.id },
      });
  for (const a of snapshot.attempts)
    if (a.costPostedAt && !byAttempt.has(a.id))
      violations.push({
        check: CHECK,
        detail: `attempt #${a.n} of job ${a.jobId} is marked posted but no transfer holds its cost`,
        refs: { jobId: a.jobId, attemptId: a.id },
      });
  return result(CHECK, costed.length, violations, { costedAttemptsByState: byState });
}
