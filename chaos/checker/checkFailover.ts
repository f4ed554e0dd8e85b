// Nothing acknowledged is lost when the primary fails over: every job a client was told
// about (202 with an id: a create, a library create or a webhook delivery) and every
// ledger transfer it was told was recorded (201, or 200 replayed) before a failover still
// exists afterwards, under its key, as the only job of that key. Synchronous replication
// is what keeps this; with asynchronous replication a commit acknowledged by the old
// primary may never have reached the standby, and this check names each one lost.
import type { ApiCall, ChaosHistory, DbSnapshot, FaultRecord } from '../history/types.js';
import { type CheckResult, groupBy, result, skipped, type Violation } from './checkResult.js';

const CHECK = 'acknowledged_jobs_survive_failover';
const ownerKey = (owner: string, key: string) => `${owner}\u0000${key}`;

/** A failover that happened: the fault's note starts with `promoted` once the standby took over. */
export function failoversOf(history: ChaosHistory): FaultRecord[] {
  return history.faults.filter((f) => f.kind === 'primary_failover' && f.note?.startsWith('promoted'));
}

function acknowledged(c: ApiCall): boolean {
  if (c.kind === 'create' || c.kind === 'inbox') return c.status === 202 && c.jobId !== undefined;
  if (c.kind === 'transfer') return c.status === 201 || c.status === 200;
  return false;
}

export function checkAcknowledgedSurviveFailover(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  const failovers = failoversOf(history);
  if (failovers.length === 0) return skipped(CHECK, 'no primary failover happened in this run');
  // An answer that arrived before the last failover ended (the standby promoted and a new
  // one built) was given by a primary that may since have died: that is every
  // acknowledgement this check is about.
  const lastFailover = Math.max(...failovers.map((f) => f.endedAt));
  const atRisk = history.calls.filter((c) => acknowledged(c) && c.endedAt <= lastFailover);
  const violations: Violation[] = [];
  const jobsById = new Map(snapshot.jobs.map((j) => [j.id, j]));
  const jobsByKey = groupBy(snapshot.jobs, (j) => ownerKey(j.ownerId, j.idempotencyKey));
  const inbox = snapshot.inbox
    ? new Map(snapshot.inbox.map((r) => [`${r.source}\u0000${r.eventId}`, r.jobId]))
    : null;
  const transfers = snapshot.transfers
    ? new Set(snapshot.transfers.map((t) => ownerKey(t.ownerId, t.id)))
    : null;
  const when = (c: ApiCall) => {
    const before = failovers.find((f) => c.endedAt <= f.endedAt);
    const at = (t: number) => `+${t - history.startedAt} ms`;
    return `acknowledged by ${c.target} at ${at(c.endedAt)}, before the end of the failover of ${at(before?.startedAt ?? 0)} to ${at(before?.endedAt ?? 0)}`;
  };

  const groups = groupBy(atRisk, (c) => `${c.kind}\u0000${c.source ?? ''}\u0000${ownerKey(c.owner, c.key)}`);
  let jobs = 0;
  let transferCount = 0;
  for (const calls of groups.values()) {
    const first = calls[0]!;
    const refs = { owner: first.owner, key: first.key };
    if (first.kind === 'transfer') {
      transferCount++;
      if (transfers !== null && !transfers.has(ownerKey(first.owner, first.key)))
        violations.push({
          check: CHECK,
          detail: `transfer ${first.key} of owner ${first.owner} was ${when(first)}, and the ledger does not hold it`,
          refs,
        });
      continue;
    }
    jobs++;
    const ids = [...new Set(calls.map((c) => c.jobId!))];
    if (ids.length > 1)
      violations.push({
        check: CHECK,
        detail: `key ${first.key} of owner ${first.owner} was acknowledged with ${ids.length} job ids: ${ids.join(', ')}`,
        refs,
      });
    for (const id of ids) {
      const job = jobsById.get(id);
      if (job === undefined) {
        violations.push({
          check: CHECK,
          detail: `job ${id} (${first.kind} ${first.key} of owner ${first.owner}) was ${when(calls.find((c) => c.jobId === id)!)}, and no longer exists`,
          refs: { ...refs, jobId: id },
        });
        continue;
      }
      if (first.kind === 'create' && (job.ownerId !== first.owner || job.idempotencyKey !== first.key))
        violations.push({
          check: CHECK,
          detail: `job ${id} was acknowledged for key ${first.key} of owner ${first.owner} but holds key ${job.idempotencyKey} of owner ${job.ownerId}`,
          refs: { ...refs, jobId: id },
        });
      const siblings = jobsByKey.get(ownerKey(job.ownerId, job.idempotencyKey)) ?? [];
      if (siblings.length > 1)
        violations.push({
          check: CHECK,
          detail: `key ${job.idempotencyKey} of owner ${job.ownerId} holds ${siblings.length} jobs after the failover: ${siblings.map((j) => j.id).join(', ')}`,
          refs: { ...refs, jobId: id },
        });
      if (first.kind === 'inbox' && inbox !== null) {
        const held = inbox.get(`${first.source ?? ''}\u0000${first.key}`);
        if (held !== id)
          violations.push({
            check: CHECK,
            detail: `webhook event ${first.key} was answered with job ${id}, and the inbox holds ${held ?? 'nothing'}`,
            refs: { ...refs, jobId: id },
          });
      }
    }
  }
  return result(CHECK, groups.size, violations, {
    failovers: failovers.length,
    acknowledgedJobsBeforeLastFailover: jobs,
    acknowledgedTransfersBeforeLastFailover: transferCount,
  });
}
