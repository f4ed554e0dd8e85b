// No result ever comes from a provider that had not passed verification when its attempt
// started: a winning attempt on a provider other than the operation's primary needs, at
// its start, a latest verification of that provider and operation, under the contract
// hash the gate computes now, that passed. Calls that won nothing are counted, not judged.
import type { ChaosHistory, DbSnapshot, SnapshotVerification } from '../history/types.js';
import { type CheckResult, groupBy, result, skipped, type Violation } from './checkResult.js';

const CHECK = 'result_only_from_verified_provider';

/** The latest verification finished at or before `at`, or undefined. */
function latestBefore(rows: SnapshotVerification[], at: number): SnapshotVerification | undefined {
  let best: SnapshotVerification | undefined;
  for (const r of rows) if (r.finishedAt <= at && (!best || r.finishedAt >= best.finishedAt)) best = r;
  return best;
}

export function checkVerifiedProviders(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  if (!history.features.worker) return skipped(CHECK, 'no worker ran attempts in this build');
  const contracts = history.contracts ?? [];
  if (contracts.length === 0 || snapshot.verifications === undefined)
    return skipped(CHECK, 'no operation with fallback providers ran');
  const violations: Violation[] = [];
  const verifications = groupBy(
    snapshot.verifications,
    (v) => `${v.provider}\u0000${v.operation}\u0000${v.contractHash}`,
  );
  const jobs = new Map(snapshot.jobs.map((j) => [j.id, j]));
  const byOperation = new Map(contracts.map((c) => [c.operation, c]));
  let judged = 0;
  const fallbackWins: Record<string, number> = {};
  const fallbackAttempts: Record<string, number> = {};
  for (const a of snapshot.attempts) {
    const job = jobs.get(a.jobId);
    const contract = job ? byOperation.get(job.operation) : undefined;
    if (!job || !contract || !a.provider || a.provider === contract.providers[0]) continue;
    fallbackAttempts[a.provider] = (fallbackAttempts[a.provider] ?? 0) + 1;
    const wins = a.state === 'succeeded' || job.completedBy === a.id;
    if (!wins) continue;
    judged++;
    fallbackWins[a.provider] = (fallbackWins[a.provider] ?? 0) + 1;
    const hash = contract.contractHashes[a.provider];
    const rows = verifications.get(`${a.provider}\u0000${contract.operation}\u0000${hash}`) ?? [];
    const latest = latestBefore(rows, a.startedAt);
    if (!latest?.passed)
      violations.push({
        check: CHECK,
        detail: `job ${job.id} (${contract.operation}) took its result from ${a.provider} (attempt #${a.n}, ${a.origin ?? '?'}), whose latest verification before the attempt started ${latest ? 'failed' : 'did not exist'}`,
        refs: { jobId: job.id, attemptId: a.id, provider: a.provider },
      });
  }
  return result(CHECK, judged, violations, { fallbackAttempts, fallbackWins });
}
