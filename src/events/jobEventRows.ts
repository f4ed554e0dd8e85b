// The one place that writes a job's events. Every statement that changes a job records
// what happened through this fragment: an audit row in onejob.job_events and, when the
// change is public, the CloudEvent in onejob.outbox under the same id, both in the
// statement (so the transaction) that makes the change, both carrying the job's owner.

/**
 * The columns the source of `jobEventRowsSql` must yield, one row per event, in any order:
 *
 * | column       | type    | what                                                                 |
 * | ------------ | ------- | -------------------------------------------------------------------- |
 * | `event_id`   | `uuid`  | id of the audit row, and of the outbox row and CloudEvent if public  |
 * | `job_id`     | `uuid`  | the job (the event's subject)                                        |
 * | `owner_id`   | `text`  | the job's owner                                                      |
 * | `attempt_id` | `uuid`  | the attempt the event is about, or null                              |
 * | `type`       | `text`  | audit type, for example `created`, `attempt_started`, `race_lost`    |
 * | `data`       | `jsonb` | audit data                                                           |
 * | `publish`    | `text`  | CloudEvent type to publish, or null for an audit-only event          |
 * | `event`      | `jsonb` | the CloudEvent (`cloudEvent()`), or null when `publish` is null       |
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
  'event',
] as const;

/**
 * Two members of a WITH list, `<source>_audit` and `<source>_outbox`, that insert the
 * events of the CTE named `source` (see `JOB_EVENT_SOURCE_COLUMNS`). Put them after the
 * source in the same WITH; PostgreSQL runs a data-modifying CTE once whether or not the
 * main statement reads it. The outbox's statement trigger fans the new rows out to each
 * publisher's deliveries. With `{ published: false }`, for a source whose events are all
 * audit-only (`publish` null), only `<source>_audit`: an outbox insert of no rows would
 * still fire that statement trigger.
 *
 * @example
 * ```ts
 * const sql = `
 * WITH moved AS (UPDATE onejob.jobs SET ... RETURNING id, owner_id),
 * events AS (
 *   SELECT $2::uuid AS event_id, id AS job_id, owner_id, NULL::uuid AS attempt_id, 'cancelled'::text AS type,
 *          $3::jsonb AS data, 'onejob.job.cancelled'::text AS publish, $4::jsonb AS event
 *   FROM moved
 * ), ${jobEventRowsSql('events')}
 * SELECT id FROM moved`;
 * ```
 */
export function jobEventRowsSql(source: string, options: { published?: boolean } = {}): string {
  const audit = `${source}_audit AS (
  INSERT INTO onejob.job_events (id, job_id, owner_id, attempt_id, type, data)
  SELECT event_id, job_id, owner_id, attempt_id, type, data FROM ${source}
)`;
  if (options.published === false) return audit;
  return `${audit}, ${source}_outbox AS (
  INSERT INTO onejob.outbox (id, owner_id, subject, type, event)
  SELECT event_id, owner_id, job_id::text, publish, event FROM ${source} WHERE publish IS NOT NULL
)`;
}
