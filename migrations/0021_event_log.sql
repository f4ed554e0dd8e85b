-- One event log, written once per fact. onejob.job_events becomes both the audit history
-- and the outbox: a public event is the audit row that also carries its CloudEvent
-- (`publish`, `event`), and events of your own (publishEvent) are rows with no job. The
-- outbox table, its fan-out trigger and the delivery row per event and publisher go:
-- each publisher keeps a position over the log instead (onejob.outbox_publishers), in
-- commit order (the writing transaction's id, `xid`, against snapshots), and
-- onejob.outbox_retries keeps only what a position cannot say: refused tries, the retries
-- they wait for, the later events of their subject held behind them, and dead letters.
-- onejob.outbox and onejob.outbox_deliveries stay as views of the same. A job's attempt
-- start is read from its attempt row (onejob.job_history).
--
-- Cost on a large database (docs/operations.md, "Upgrading to migration 0021"): every
-- outbox row is copied into its audit row (an UPDATE of job_events rows that have one) or
-- appended (your own events); everything else is catalog work. It needs a window: writers
-- of an older version write to the outbox table this migration drops.

-- 1. The log's new columns. `xid` is the writing transaction (pg_current_xact_id(), the
-- top-level id even inside a savepoint). Rows already written get 1, visible in every
-- snapshot: what was pending for a publisher stays in its delivery rows (step 3), and the
-- constant default adds the column without rewriting the table.
ALTER TABLE onejob.job_events
  ALTER COLUMN job_id DROP NOT NULL,
  -- What an event not about a job is about (publishEvent's subject); a job's events have their job.
  ADD COLUMN subject text,
  -- The CloudEvent type and the CloudEvent, on public events only.
  ADD COLUMN publish text,
  ADD COLUMN event   jsonb,
  ADD COLUMN xid     xid8 NOT NULL DEFAULT '1';
ALTER TABLE onejob.job_events ALTER COLUMN xid SET DEFAULT pg_current_xact_id();

-- 2. The outbox into the log. A job's public event already has its audit row under the
-- same id and owner: the row takes the CloudEvent (the one edit the history gets, inside
-- this migration). Any other outbox row is an event of your own: appended in its order.
ALTER TABLE onejob.job_events DISABLE TRIGGER job_events_append_only;
UPDATE onejob.job_events e SET publish = o.type, event = o.event
FROM onejob.outbox o WHERE o.id = e.id AND o.owner_id = e.owner_id;
ALTER TABLE onejob.job_events ENABLE TRIGGER job_events_append_only;
INSERT INTO onejob.job_events (id, owner_id, subject, type, publish, event, created_at, xid)
SELECT o.id, o.owner_id, o.subject, o.type, o.type, o.event, o.created_at, '1'
FROM onejob.outbox o
WHERE NOT EXISTS (SELECT 1 FROM onejob.job_events e WHERE e.id = o.id AND e.owner_id = o.owner_id)
ORDER BY o.seq;

ALTER TABLE onejob.job_events
  ADD CONSTRAINT job_events_about CHECK (job_id IS NOT NULL OR subject IS NOT NULL),
  ADD CONSTRAINT job_events_public CHECK ((publish IS NULL) = (event IS NULL));

-- 3. The delivery rows become onejob.outbox_retries: a row only for what a position cannot
-- say (a refused try and its retries, an event held behind one, a dead letter). They now
-- point into the log and are ordered by its seq (a subject's rows and the log's later
-- events of that subject must compare). Published rows stay as the record of when they
-- went; pending rows are published by the relay's retry pass, dead ones stay dead letters.
ALTER TABLE onejob.outbox_deliveries RENAME TO outbox_retries;
ALTER TABLE onejob.outbox_retries RENAME CONSTRAINT outbox_deliveries_pkey TO outbox_retries_pkey;
ALTER TABLE onejob.outbox_retries RENAME CONSTRAINT outbox_deliveries_published_at TO outbox_retries_published_at;
ALTER TABLE onejob.outbox_retries RENAME CONSTRAINT outbox_deliveries_dead_at TO outbox_retries_dead_at;
ALTER TABLE onejob.outbox_retries DROP CONSTRAINT outbox_deliveries_event_fkey;
UPDATE onejob.outbox_retries d SET seq = e.seq
FROM onejob.job_events e WHERE e.id = d.event_id AND e.owner_id = d.owner_id;
ALTER TABLE onejob.outbox_retries ADD CONSTRAINT outbox_retries_event_fkey FOREIGN KEY (event_id, owner_id)
  REFERENCES onejob.job_events (id, owner_id) ON DELETE CASCADE;
-- A retry pass reads one publisher's pending rows by subject (the pending-subject index);
-- the same index sorts them. Few rows are ever pending now: the index by seq alone goes.
DROP INDEX onejob.outbox_deliveries_pending;
ALTER INDEX onejob.outbox_deliveries_pending_subject RENAME TO outbox_retries_pending_subject;
ALTER INDEX onejob.outbox_deliveries_dead RENAME TO outbox_retries_dead;

DROP TRIGGER outbox_fan_out ON onejob.outbox;
DROP FUNCTION onejob.outbox_fan_out();
DROP TABLE onejob.outbox;

-- 4. A publisher's position. Every event whose xid is visible in `done` is behind it. A
-- pass that has more than a batch to publish opens a window: the events visible in
-- `window_end` and not in `done`, a fixed set once taken, walked in seq order, with
-- `window_seq` the last seq already behind the position. When the window is walked,
-- `done` becomes `window_end`. Publishers already registered start at this migration:
-- everything written before it is behind them, except what their delivery rows still hold.
ALTER TABLE onejob.outbox_publishers
  ADD COLUMN done       pg_snapshot,
  ADD COLUMN window_end pg_snapshot,
  ADD COLUMN window_seq bigint NOT NULL DEFAULT 0,
  -- Why the last pass could not reach the broker, until a pass moves the position again:
  -- the last error of every event ahead of the position.
  ADD COLUMN last_error text;
UPDATE onejob.outbox_publishers SET done = pg_current_snapshot();
-- A publisher registered on a database with no other starts before every event.
ALTER TABLE onejob.outbox_publishers ALTER COLUMN done SET DEFAULT '1:1:';
ALTER TABLE onejob.outbox_publishers ALTER COLUMN done SET NOT NULL;

-- Whether an event (its xid and seq) is behind a position: visible in `done`, or in the
-- open window and at or before its seq. Inlined where it is used.
CREATE FUNCTION onejob.event_behind(xid xid8, seq bigint, done pg_snapshot, window_end pg_snapshot, window_seq bigint)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT pg_visible_in_snapshot(xid, done)
      OR (window_end IS NOT NULL AND seq <= window_seq AND pg_visible_in_snapshot(xid, window_end))
$$;

-- 5. The log's indexes. A relay pass reads the public events between its position's
-- xmin and its window's xmax; cleanup reads your own events by age (a job's events are
-- history and stay).
CREATE INDEX job_events_public_by_xid ON onejob.job_events (xid) WHERE publish IS NOT NULL;
CREATE INDEX job_events_own_by_age ON onejob.job_events (created_at) WHERE job_id IS NULL;

-- 6. History stays append-only; only your own events, once every publisher is past them,
-- may be deleted by the retention cleanup.
CREATE FUNCTION onejob.refuse_job_history_edit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND OLD.job_id IS NULL THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION '% on %.% is not allowed: the table is append-only', TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
    USING ERRCODE = 'OJ002';
END $$;
DROP TRIGGER job_events_append_only ON onejob.job_events;
CREATE TRIGGER job_events_append_only BEFORE UPDATE OR DELETE ON onejob.job_events
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_job_history_edit();

-- The start of an attempt is now read from its row: which attempt of which job, which
-- provider, why, and when are history there, refused like any edit of the log.
CREATE FUNCTION onejob.refuse_attempt_start_edit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the start of attempt % is part of its job''s history: id, job, n, provider, origin and started_at are not edited', OLD.id
    USING ERRCODE = 'OJ002';
END $$;
CREATE TRIGGER attempts_start_is_history BEFORE UPDATE ON onejob.attempts
  FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.job_id IS DISTINCT FROM NEW.job_id
                     OR OLD.owner_id IS DISTINCT FROM NEW.owner_id OR OLD.n IS DISTINCT FROM NEW.n
                     OR OLD.provider IS DISTINCT FROM NEW.provider OR OLD.origin IS DISTINCT FROM NEW.origin
                     OR OLD.started_at IS DISTINCT FROM NEW.started_at)
  EXECUTE FUNCTION onejob.refuse_attempt_start_edit();

-- 7. The public events as a relation of their own, for operators' queries.
CREATE VIEW onejob.outbox AS
SELECT id, owner_id, seq, coalesce(subject, job_id::text) AS subject, publish AS type, event, created_at, xid
FROM onejob.job_events WHERE publish IS NOT NULL;

-- Every public event for every registered publisher, in the state of its retry row if it
-- has one, else published when the publisher's position is past it and pending when not.
-- What GET /v1/jobs/{id}/deliveries and the dashboard show. A position records no time
-- per event: an event published from the position has no published_at.
CREATE VIEW onejob.outbox_deliveries AS
SELECT e.id AS event_id, e.owner_id, p.name AS publisher, e.seq, coalesce(e.subject, e.job_id::text) AS subject,
       coalesce(r.state, CASE WHEN onejob.event_behind(e.xid, e.seq, p.done, p.window_end, p.window_seq)
                              THEN 'published' ELSE 'pending' END) AS state,
       coalesce(r.attempts, 0) AS attempts, r.next_attempt_at,
       CASE WHEN r.event_id IS NOT NULL THEN r.last_error
            WHEN NOT onejob.event_behind(e.xid, e.seq, p.done, p.window_end, p.window_seq) THEN p.last_error END AS last_error,
       coalesce(r.replays, 0) AS replays,
       e.created_at, r.published_at, r.dead_at
FROM onejob.job_events e
CROSS JOIN onejob.outbox_publishers p
LEFT JOIN onejob.outbox_retries r ON r.event_id = e.id AND r.owner_id = e.owner_id AND r.publisher = p.name
WHERE e.publish IS NOT NULL;

-- 8. A job's history: its events, and the start of each of its attempts, read from the
-- attempt row (live jobs) or from the archived document (archived jobs), so no separate
-- row is written when an attempt starts. Attempts started before this migration have
-- their audit row already, and are not shown twice.
CREATE VIEW onejob.job_history AS
SELECT e.job_id, e.owner_id, e.id, e.seq, e.type, e.attempt_id, e.data, e.created_at
FROM onejob.job_events e WHERE e.job_id IS NOT NULL
UNION ALL
SELECT a.job_id, a.owner_id, a.id, NULL::bigint, 'attempt_started'::text, a.id,
       jsonb_build_object('attemptId', a.id, 'n', a.n, 'provider', a.provider, 'origin', a.origin,
                          'jobVersion', a.job_version),
       a.started_at
FROM onejob.attempts a
WHERE NOT EXISTS (SELECT 1 FROM onejob.job_events s
                  WHERE s.job_id = a.job_id AND s.attempt_id = a.id AND s.type = 'attempt_started')
UNION ALL
SELECT j.job_id, j.owner_id, (x.a ->> 'id')::uuid, NULL::bigint, 'attempt_started'::text, (x.a ->> 'id')::uuid,
       jsonb_build_object('attemptId', x.a -> 'id', 'n', x.a -> 'n', 'provider', x.a -> 'provider',
                          'origin', x.a -> 'origin'),
       (x.a ->> 'startedAt')::timestamptz
FROM onejob.jobs_archive j CROSS JOIN LATERAL jsonb_array_elements(j.doc -> 'attempts') AS x(a)
WHERE NOT EXISTS (SELECT 1 FROM onejob.job_events s
                  WHERE s.job_id = j.job_id AND s.attempt_id = (x.a ->> 'id')::uuid AND s.type = 'attempt_started');
