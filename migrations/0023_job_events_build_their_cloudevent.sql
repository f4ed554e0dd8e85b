-- A job's public event is its audit row plus a CloudEvent, and every field of that
-- CloudEvent is already on the row: its id, its type (`publish`), its subject (the job),
-- its time (`created_at`), and its data (the job id and the audit `data`). Storing the
-- CloudEvent as well wrote the same facts twice, about 400 bytes of the 790 of an event
-- row. From here a job's event stores only what the row lacks, its `traceparent`, and
-- onejob.cloud_event builds the CloudEvent when it is read (the relay, dead letters, the
-- outbox view). Events of your own (publishEvent, no job) keep the CloudEvent you gave;
-- rows written before this migration keep theirs, and it is what is read back.
--
-- Cost on a large database: a nullable column without a default (no rewrite) and two
-- CHECK constraints (one read of the table). The previous version's writers still work
-- (they store the CloudEvent, which is read back as it is), but its relays read the stored
-- column and would find nothing in the new rows: stop them before this version writes
-- (docs/operations.md, "Upgrading to migration 0023").
ALTER TABLE onejob.job_events ADD COLUMN traceparent text;

-- A stored CloudEvent is public; an event with no job (your own) always has one.
ALTER TABLE onejob.job_events
  DROP CONSTRAINT job_events_public,
  ADD CONSTRAINT job_events_event_is_public CHECK (event IS NULL OR publish IS NOT NULL),
  ADD CONSTRAINT job_events_own_carry_event CHECK (job_id IS NOT NULL OR event IS NOT NULL);

-- The CloudEvent of a public event row (null for an audit-only row), the same document
-- src/events/cloudEvent.ts builds: the stored one when there is one, else built from the
-- row. The time is the writing transaction's (created_at), to the millisecond, as
-- Date.prototype.toISOString writes it. `source` is onejob's EVENT_SOURCE.
CREATE FUNCTION onejob.cloud_event(id uuid, job_id uuid, publish text, data jsonb, event jsonb,
                                   created_at timestamptz, traceparent text)
RETURNS jsonb LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN publish IS NULL THEN NULL
    WHEN event IS NOT NULL THEN event
    ELSE jsonb_build_object(
           'specversion', '1.0', 'id', id, 'source', 'onejob', 'type', publish, 'subject', job_id,
           'time', to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'datacontenttype', 'application/json',
           'data', jsonb_build_object('jobId', job_id) || data)
         || CASE WHEN traceparent IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('traceparent', traceparent) END
  END
$$;

CREATE OR REPLACE VIEW onejob.outbox AS
SELECT id, owner_id, seq, coalesce(subject, job_id::text) AS subject, publish AS type,
       onejob.cloud_event(id, job_id, publish, data, event, created_at, traceparent) AS event, created_at, xid
FROM onejob.job_events WHERE publish IS NOT NULL;
