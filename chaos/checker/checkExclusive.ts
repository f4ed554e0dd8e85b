// Exclusive jobs never have two live attempts, and never start a new attempt while an
// earlier one is unknown. Checked twice: from the attempts table (what the database says
// happened) and from the provider's own request log (what really reached the provider).
import type { ChaosHistory, DbSnapshot, SnapshotAttempt } from '../history/types.js';
import { type CheckResult, groupBy, result, skipped, type Violation } from './checkResult.js';

const CHECK = 'exclusive_one_live_attempt';
const LIVE = new Set(['starting', 'running', 'unknown']);

/** The time an attempt stopped blocking others: its finish, or never while it is still live. */
function liveUntil(a: SnapshotAttempt): number {
  if (LIVE.has(a.state) || a.finishedAt === null) return Number.POSITIVE_INFINITY;
  return a.finishedAt;
}

export function checkExclusiveAttempts(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  if (!history.features.worker) return skipped(CHECK, 'no worker ran attempts in this build');
  const violations: Violation[] = [];
  const exclusive = snapshot.attempts.filter((a) => a.exclusive);
  const byJob = groupBy(exclusive, (a) => a.jobId);

  for (const [jobId, attempts] of byJob) {
    const live = attempts.filter((a) => LIVE.has(a.state));
    if (live.length > 1) {
      violations.push({
        check: CHECK,
        detail: `exclusive job ${jobId} has ${live.length} live attempts now: ${live.map((a) => `#${a.n} ${a.state}`).join(', ')}`,
        refs: { jobId },
      });
    }
    const sorted = [...attempts].sort((a, b) => a.startedAt - b.startedAt || a.n - b.n);
    for (let i = 1; i < sorted.length; i++) {
      const later = sorted[i]!;
      for (const earlier of sorted.slice(0, i)) {
        if (later.startedAt < liveUntil(earlier)) {
          violations.push({
            check: CHECK,
            detail: `exclusive job ${jobId}: attempt #${later.n} started while attempt #${earlier.n} was still live (now ${earlier.state})`,
            refs: { jobId, earlier: earlier.n, later: later.n },
          });
        }
      }
    }
  }

  // The provider's view: two different attempts of one exclusive job being worked on at
  // the same moment. An attempt that a person abandoned has been fenced out on purpose,
  // so a successor may overlap the provider's leftover work.
  const attemptsByJob = groupBy(snapshot.attempts, (a) => a.jobId);
  const requests = history.providerRequests.filter((r) => r.outcome !== 'refused');
  let providerJobs = 0;
  for (const [key, reqs] of groupBy(requests, (r) => r.key)) {
    const attempts = attemptsByJob.get(key);
    if (!attempts?.some((a) => a.exclusive)) continue;
    providerJobs++;
    const sorted = [...reqs].sort((a, b) => a.receivedAt - b.receivedAt);
    for (let i = 1; i < sorted.length; i++) {
      const later = sorted[i]!;
      for (const earlier of sorted.slice(0, i)) {
        if (earlier.attempt === later.attempt) continue;
        const fenced = attempts.find((a) => a.n === earlier.attempt)?.state === 'abandoned';
        if (!fenced && later.receivedAt < earlier.doneAt) {
          violations.push({
            check: CHECK,
            detail: `provider ${later.provider} received attempt #${later.attempt} of exclusive job ${key} while still working on attempt #${earlier.attempt}`,
            refs: { jobId: key, earlier: earlier.attempt, later: later.attempt },
          });
        }
      }
    }
  }
  return result(CHECK, byJob.size, violations, { providerJobs });
}
