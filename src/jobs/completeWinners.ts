// The one way a result wins its job: one statement for a whole batch (a single completion
// is a batch of one, completeAttempt.ts). Only wins are written here; an attempt that
// does not win in this statement goes through completeAttempt, which records the lost
// race or the late, discarded result under the job's lock.
import { v7 as uuidv7 } from 'uuid';
import type { Queryable } from '../db/createPool.js';
import { sqlParams } from '../db/sqlParams.js';
import { jobEventRowsSql } from '../events/jobEventRows.js';
import type { Usage } from '../providers/types.js';
import type { AttemptRow } from './attemptRow.js';
import { attemptStatesInto, jobStatesInto, sqlStates } from './stateMachine.js';

/** What an attempt's call produced, offered to its job. */
export interface AttemptResult {
  result: unknown;
  usage?: Usage | undefined;
  costMicros?: number | undefined;
}

export interface Offered extends AttemptResult {
  attempt: Pick<AttemptRow, 'id' | 'job_id' | 'n' | 'provider' | 'job_version'>;
  traceparent: string | null;
}

// The compare-and-swap of every completion, for one attempt or many at once, with the
// attempt's move to succeeded and its `succeeded` event (one row of the event log) in the
// same statement. Why it needs no separate job lock:
// - `won` is a conditional UPDATE of the job row: it waits for whoever holds the row and
//   then re-checks version, completed_by and state on the newest committed row. The
//   attempt row it joins may be older (the statement's snapshot), so
// - `att` moves the attempt only from a live state, checked on the newest committed
//   attempt row. It runs on the winners of `won`, so the job row is locked first, in the
//   order every other writer uses (job, then attempts).
// - If an attempt won the job but is no longer live (it was failed by reconciliation
//   after this statement's snapshot was taken), its event rows (the shared fragment of
//   jobEventRows.ts) get a NULL job_id (LEFT JOIN), and the log's check that an event is
//   about a job or a subject (job_events_about) aborts the whole statement: nothing is
//   written, and the caller completes those attempts one by one under the job lock.
// Each offered attempt is looked up on its own (LATERAL, and OFFSET 0 so PostgreSQL cannot
// turn the lookups back into a join): planned without statistics, the join read the whole
// attempts table for every batch, and the drain slowed as it grew. `att` finds its rows the
// same way, by key from an array of the winners: joined to `won`, a batch of a full
// worker's results was planned as a hash join over every attempt (test/db/queryPlans.test.ts).
// A job offered twice in one batch (two attempts of a pure job) is updated once; the
// attempt it names in completed_by is the winner, the other one loses through
// completeAttempt. The event's version is job_version + 1: the CAS only passes at that.
// The statement's WITH members, without WITH: the worker's completion that also claims the
// next jobs (worker/completeAndClaim.ts) puts them ahead of its claim, numbering the
// claim's parameters after these (WIN_PARAMS.followedBy).
export const WIN_PARAMS = sqlParams([
  'attemptIds',
  'results',
  'usages',
  'costs',
  'eventIds',
  'audits',
  'traceparents',
] as const);
const p = WIN_PARAMS.$;
export const WIN_MANY_CTES = `offered AS (
  SELECT * FROM unnest(${p.attemptIds}::uuid[], ${p.results}::text[], ${p.usages}::text[], ${p.costs}::int8[],
                       ${p.eventIds}::uuid[], ${p.audits}::text[], ${p.traceparents}::text[])
    AS o(attempt_id, result, usage, cost, event_id, audit, traceparent)
),
live AS (
  SELECT o.attempt_id, o.result, a.job_id, a.job_version
  FROM offered o CROSS JOIN LATERAL (
    SELECT a.job_id, a.job_version FROM onejob.attempts a
    WHERE a.id = o.attempt_id AND a.state IN (${sqlStates(attemptStatesInto('succeeded'))}) OFFSET 0
  ) a
),
won AS (
  UPDATE onejob.jobs j SET state = 'succeeded', version = j.version + 1, completed_by = l.attempt_id,
    result = l.result::jsonb, error = NULL, finished_at = now(), updated_at = now()
  FROM live l
  WHERE j.id = l.job_id AND j.version = l.job_version AND j.completed_by IS NULL
    AND j.state IN (${sqlStates(jobStatesInto('succeeded'))})
  RETURNING j.id AS job_id, j.owner_id, j.completed_by AS attempt_id, j.version
),
att AS (
  UPDATE onejob.attempts a SET state = 'succeeded', finished_at = now(), lease_expires_at = NULL,
    usage = o.usage::jsonb, cost_micros = o.cost
  FROM offered o
  WHERE a.id = ANY (ARRAY(SELECT attempt_id FROM won)) AND o.attempt_id = a.id
    AND a.state IN (${sqlStates(attemptStatesInto('succeeded'))})
  RETURNING a.id, a.job_id
),
events AS (
  SELECT o.event_id, x.job_id, w.owner_id, w.attempt_id, 'succeeded'::text AS type, o.audit::jsonb AS data,
         'onejob.job.succeeded'::text AS publish, o.traceparent
  FROM won w JOIN offered o ON o.attempt_id = w.attempt_id LEFT JOIN att x ON x.id = w.attempt_id
), ${jobEventRowsSql('events')}`;

export const WIN_MANY_SQL = `WITH ${WIN_MANY_CTES}
SELECT attempt_id, version FROM won`;

/**
 * Offers results in one statement. Returns the attempts that won, with the job's new
 * version. Attempts not in the map did not win here and must be completed with
 * completeAttempt (lost race, late result). Throws if the statement failed as a whole
 * (then nothing was written). `keptPlans`: `db` is a kept-plan connection (src/db/keptPlanPool.ts).
 */
export async function completeWinners(
  db: Queryable,
  offered: Offered[],
  options: { keptPlans?: boolean } = {},
): Promise<Map<string, number>> {
  if (offered.length === 0) return new Map();
  // On kept-plan connections (src/db/keptPlanPool.ts) a named statement, planned once by
  // index. Elsewhere unnamed, so PostgreSQL plans it for each batch with the tables' current
  // sizes: named there, a session kept the plan it made while jobs and attempts were small,
  // which joins by reading them whole (docs/operations.md, "Statistics and plans").
  const { rows } = await db.query<{ attempt_id: string; version: number }>({
    ...(options.keptPlans ? { name: 'onejob-win-many' } : {}),
    text: WIN_MANY_SQL,
    values: winManyValues(offered),
  });
  return new Map(rows.map((r) => [r.attempt_id, r.version]));
}

/** The values of WIN_PARAMS for `offered`, in placeholder order, with a new event id per result. */
export function winManyValues(offered: Offered[]): unknown[] {
  const cols = {
    ids: [] as string[],
    results: [] as string[],
    usages: [] as (string | null)[],
    costs: [] as (number | null)[],
    eventIds: [] as string[],
    audits: [] as string[],
    traceparents: [] as (string | null)[],
  };
  for (const o of offered) {
    const { id, n, provider, job_version: jobVersion } = o.attempt;
    const eventId = uuidv7();
    // The same data recordJobEvent would write for this win.
    const data = { state: 'succeeded', version: jobVersion + 1, completedBy: id, n, provider };
    cols.ids.push(id);
    cols.results.push(JSON.stringify(o.result ?? null));
    cols.usages.push(o.usage === undefined || o.usage === null ? null : JSON.stringify(o.usage));
    cols.costs.push(o.costMicros ?? null);
    cols.eventIds.push(eventId);
    cols.audits.push(JSON.stringify(data));
    // The CloudEvent is built from the row when it is published (onejob.cloud_event).
    cols.traceparents.push(o.traceparent ?? null);
  }
  return WIN_PARAMS.values<unknown>({
    attemptIds: cols.ids,
    results: cols.results,
    usages: cols.usages,
    costs: cols.costs,
    eventIds: cols.eventIds,
    audits: cols.audits,
    traceparents: cols.traceparents,
  });
}
