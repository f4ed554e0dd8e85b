// Intake identity: one job per (owner, key) in the database, and every client that sent a
// key was always told the same job id, the one the database holds.
import type { ChaosHistory, DbSnapshot } from '../history/types.js';
import { type CheckResult, groupBy, result, skipped, type Violation } from './checkResult.js';

const ownerKey = (owner: string, key: string) => `${owner}\u0000${key}`;

/** At most one job row per (owner, idempotency key). */
export function checkOneJobPerKey(snapshot: DbSnapshot): CheckResult {
  const violations: Violation[] = [];
  const groups = groupBy(snapshot.jobs, (j) => ownerKey(j.ownerId, j.idempotencyKey));
  for (const jobs of groups.values()) {
    if (jobs.length > 1) {
      const first = jobs[0]!;
      violations.push({
        check: 'one_job_per_key',
        detail: `${jobs.length} jobs for owner ${first.ownerId} key ${first.idempotencyKey}: ${jobs.map((j) => j.id).join(', ')}`,
        refs: { owner: first.ownerId, key: first.idempotencyKey },
      });
    }
  }
  return result('one_job_per_key', groups.size, violations);
}

/**
 * Every 202 answer for one (owner, key) named the same job, and that job is the one the
 * database holds for the key: an acknowledged job is never lost, never swapped.
 */
export function checkOneJobIdPerClientKey(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  const violations: Violation[] = [];
  const stored = new Map(snapshot.jobs.map((j) => [ownerKey(j.ownerId, j.idempotencyKey), j.id]));
  const accepted = history.calls.filter((c) => c.kind === 'create' && c.status === 202 && c.jobId);
  const groups = groupBy(accepted, (c) => ownerKey(c.owner, c.key));
  for (const calls of groups.values()) {
    const first = calls[0]!;
    const ids = new Set(calls.map((c) => c.jobId!));
    if (ids.size > 1) {
      violations.push({
        check: 'one_job_id_per_client_key',
        detail: `key ${first.key} of owner ${first.owner} was answered with ${ids.size} job ids: ${[...ids].join(', ')}`,
        refs: { owner: first.owner, key: first.key },
      });
    }
    const held = stored.get(ownerKey(first.owner, first.key));
    if (held === undefined) {
      violations.push({
        check: 'one_job_id_per_client_key',
        detail: `key ${first.key} of owner ${first.owner} was acknowledged (job ${first.jobId}) but no job holds it`,
        refs: { owner: first.owner, key: first.key, jobId: first.jobId! },
      });
    } else if (ids.size === 1 && !ids.has(held)) {
      violations.push({
        check: 'one_job_id_per_client_key',
        detail: `key ${first.key} was answered with job ${first.jobId} but the database holds job ${held}`,
        refs: { owner: first.owner, key: first.key, jobId: held },
      });
    }
  }
  return result('one_job_id_per_client_key', groups.size, violations);
}

/** Every delivery of one webhook event id was answered with one job, and the inbox holds that job. */
export function checkInboxOneJobPerEvent(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  if (!history.features.inbox || snapshot.inbox === null)
    return skipped('inbox_one_job_per_event', 'the webhook inbox is not available in this build');
  const violations: Violation[] = [];
  const stored = new Map(snapshot.inbox.map((r) => [`${r.source}\u0000${r.eventId}`, r.jobId]));
  const accepted = history.calls.filter((c) => c.kind === 'inbox' && c.status === 202 && c.jobId);
  const groups = groupBy(accepted, (c) => `${c.source ?? ''}\u0000${c.key}`);
  for (const calls of groups.values()) {
    const first = calls[0]!;
    const ids = new Set(calls.map((c) => c.jobId!));
    const held = stored.get(`${first.source ?? ''}\u0000${first.key}`);
    if (ids.size > 1 || held === undefined || !ids.has(held)) {
      violations.push({
        check: 'inbox_one_job_per_event',
        detail: `webhook event ${first.key} of source ${first.source}: answers named ${[...ids].join(', ')}, the inbox holds ${held ?? 'nothing'}`,
        refs: { source: first.source ?? '', eventId: first.key },
      });
    }
  }
  return result('inbox_one_job_per_event', groups.size, violations);
}
