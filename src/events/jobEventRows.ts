// The one place that writes a job's events. Every statement that changes a job records
// what happened through this fragment: one row in the event log (onejob.job_events),
// which is both the job's audit history and, when the change is public, the outbox (the
// row names the CloudEvent type to publish), written by the statement (so the transaction)
// that makes the change, with the job's owner and the writing transaction's id
// (docs/outbox.md). The CloudEvent itself is not stored: every field of it is on the row,
// and onejob.cloud_event (migration 0023) builds it when a relay reads the row.

/**
 * The columns the source of `jobEventRowsSql` must yield, one row per event, in any order:
 *
 * | column       | type    | what                                                                 |
 * | ------------ | ------- | -------------------------------------------------------------------- |
 * | `event_id`   | `uuid`  | id of the event, and of its CloudEvent if public                     |
 * | `job_id`     | `uuid`  | the job (the event's subject)                                        |
 * | `owner_id`   | `text`  | the job's owner                                                      |
 * | `attempt_id` | `uuid`  | the attempt the event is about, or null                              |
 * | `type`       | `text`  | audit type, for example `created`, `attempt_started`, `race_lost`    |
 * | `data`       | `jsonb` | audit data                                                           |
 * | `publish`    | `text`  | CloudEvent type to publish, or null for an audit-only event          |
 * | `traceparent`| `text`  | W3C trace context the CloudEvent carries, or null                    |
 *
 * Cast parameters and nulls to these types in the source (`$1::uuid`, `NULL::uuid`): an
 * untyped null is text, which PostgreSQL does not assign to a uuid column.
 */
export const JOB_EVENT_SOURCE_COLUMNS = [
  'event_id',
  'job_id',
  'owner_id',
  'attempt_id',
  'type',
  'data',
  'publish',
  'traceparent',
] as const;

/**
 * A member of a WITH list, `<source>_log`, that appends the events of the CTE named
 * `source` (see `JOB_EVENT_SOURCE_COLUMNS`) to the event log, one row each. Put it after
 * the source in the same WITH; PostgreSQL runs a data-modifying CTE once whether or not
 * the main statement reads it. Nothing else is written: each publisher finds the public
 * ones from its position in the log.
 *
 * @example
 * ```ts
 * const sql = `
 * WITH moved AS (UPDATE onejob.jobs SET ... RETURNING id, owner_id),
 * events AS (
 *   SELECT $2::uuid AS event_id, id AS job_id, owner_id, NULL::uuid AS attempt_id, 'cancelled'::text AS type,
 *          $3::jsonb AS data, 'onejob.job.cancelled'::text AS publish, $4::text AS traceparent
 *   FROM moved
 * ), ${jobEventRowsSql('events')}
 * SELECT id FROM moved`;
 * ```
 */
export function jobEventRowsSql(source: string): string {
  return `${source}_log AS (
  INSERT INTO onejob.job_events (id, job_id, owner_id, attempt_id, type, data, publish, traceparent)
  SELECT event_id, job_id, owner_id, attempt_id, type, data, publish, traceparent FROM ${source}
)`;
}
