-- Every row of a tenant's data carries its owner, and every key includes it: what
-- distributing the tables by owner_id (Citus `create_distributed_table(<table>, 'owner_id')`)
-- requires, and what lets each statement that names an owner reach a single shard
-- (docs/scaling.md, "Citus"). `id` stays the leading column of each key, so a look-up by id
-- alone keeps its index.
--
-- Cost on a large database (docs/operations.md, "Upgrading to migration 0012"): the
-- backfill rewrites every row of attempts, job_events, outbox and outbox_deliveries (each
-- table grows to about twice its size until VACUUM reclaims the old versions); SET NOT NULL
-- scans each of them, and every new key builds its unique index and every new foreign key
-- checks each row, all under an ACCESS EXCLUSIVE lock held until this migration commits.
-- Nothing reads or writes those tables meanwhile: plan a maintenance window, archive and
-- clean up the outbox first to make the tables small, and stop every process of an older
-- version (its writes name no owner and would fail after this migration).

-- 1. The owner of a job's children, copied from the job. Added without a default, so the
-- column is added without rewriting the table; the UPDATEs below fill it.
ALTER TABLE onejob.attempts ADD COLUMN owner_id text;
ALTER TABLE onejob.job_events ADD COLUMN owner_id text;
ALTER TABLE onejob.outbox ADD COLUMN owner_id text;
ALTER TABLE onejob.outbox_deliveries ADD COLUMN owner_id text;

UPDATE onejob.attempts a SET owner_id = j.owner_id FROM onejob.jobs j WHERE j.id = a.job_id;

-- The audit is append-only (0001's trigger refuses any UPDATE); filling a new column is
-- the one edit it ever gets, inside this migration's transaction.
ALTER TABLE onejob.job_events DISABLE TRIGGER job_events_append_only;
UPDATE onejob.job_events e SET owner_id = j.owner_id FROM onejob.jobs j WHERE j.id = e.job_id;
UPDATE onejob.job_events e SET owner_id = a.owner_id
  FROM onejob.jobs_archive a WHERE e.owner_id IS NULL AND a.job_id = e.job_id;
-- Events of a job that is nowhere any more cannot exist (archival keeps the job), but a
-- NOT NULL column must hold something: the owner of events that name no tenant.
UPDATE onejob.job_events SET owner_id = '' WHERE owner_id IS NULL;
ALTER TABLE onejob.job_events ENABLE TRIGGER job_events_append_only;

-- A job's events have the job id as subject; an event published by your own code belongs
-- to the owner '' unless it names one (src/outbox/publishEvent.ts).
UPDATE onejob.outbox o SET owner_id = j.owner_id FROM onejob.jobs j WHERE o.subject = j.id::text;
UPDATE onejob.outbox o SET owner_id = a.owner_id
  FROM onejob.jobs_archive a WHERE o.owner_id IS NULL AND o.subject = a.job_id::text;
UPDATE onejob.outbox SET owner_id = '' WHERE owner_id IS NULL;
UPDATE onejob.outbox_deliveries d SET owner_id = o.owner_id FROM onejob.outbox o WHERE o.id = d.event_id;

ALTER TABLE onejob.attempts ALTER COLUMN owner_id SET NOT NULL;
ALTER TABLE onejob.job_events ALTER COLUMN owner_id SET NOT NULL;
ALTER TABLE onejob.outbox ALTER COLUMN owner_id SET NOT NULL;
ALTER TABLE onejob.outbox_deliveries ALTER COLUMN owner_id SET NOT NULL;

-- 2. Keys with the owner. The foreign keys go first: they depend on the keys they reference.
ALTER TABLE onejob.attempts DROP CONSTRAINT attempts_job_id_fkey;
ALTER TABLE onejob.outbox_deliveries DROP CONSTRAINT outbox_deliveries_event_id_fkey;

ALTER TABLE onejob.jobs DROP CONSTRAINT jobs_pkey, ADD CONSTRAINT jobs_pkey PRIMARY KEY (id, owner_id);

ALTER TABLE onejob.attempts DROP CONSTRAINT attempts_pkey, ADD CONSTRAINT attempts_pkey PRIMARY KEY (id, owner_id);
ALTER TABLE onejob.attempts DROP CONSTRAINT attempts_job_n_unique,
  ADD CONSTRAINT attempts_job_n_unique UNIQUE (job_id, n, owner_id);
-- Still one live exclusive attempt per job: a job's attempts all carry the job's owner.
DROP INDEX onejob.attempts_one_live_exclusive;
CREATE UNIQUE INDEX attempts_one_live_exclusive ON onejob.attempts (job_id, owner_id)
  WHERE exclusive AND state IN ('starting', 'running', 'unknown');
ALTER TABLE onejob.attempts ADD CONSTRAINT attempts_job_fkey FOREIGN KEY (job_id, owner_id)
  REFERENCES onejob.jobs (id, owner_id) ON DELETE CASCADE;

ALTER TABLE onejob.job_events DROP CONSTRAINT job_events_pkey, ADD CONSTRAINT job_events_pkey PRIMARY KEY (id, owner_id);

ALTER TABLE onejob.outbox DROP CONSTRAINT outbox_pkey, ADD CONSTRAINT outbox_pkey PRIMARY KEY (id, owner_id);
ALTER TABLE onejob.outbox_deliveries DROP CONSTRAINT outbox_deliveries_pkey,
  ADD CONSTRAINT outbox_deliveries_pkey PRIMARY KEY (event_id, publisher, owner_id);
ALTER TABLE onejob.outbox_deliveries ADD CONSTRAINT outbox_deliveries_event_fkey FOREIGN KEY (event_id, owner_id)
  REFERENCES onejob.outbox (id, owner_id) ON DELETE CASCADE;

ALTER TABLE onejob.job_tombstones DROP CONSTRAINT job_tombstones_job_id_key,
  ADD CONSTRAINT job_tombstones_job_id_key UNIQUE (job_id, owner_id);
ALTER TABLE onejob.jobs_archive DROP CONSTRAINT jobs_archive_pkey,
  ADD CONSTRAINT jobs_archive_pkey PRIMARY KEY (job_id, owner_id);

-- An event id is unique per source and owner: a source whose owner changes accepts its old
-- event ids again, for the new owner (docs/scaling.md).
ALTER TABLE onejob.inbox_events DROP CONSTRAINT inbox_events_pkey,
  ADD CONSTRAINT inbox_events_pkey PRIMARY KEY (source, event_id, owner_id);

-- 3. The fan-out copies the event's owner to each of its deliveries (0008's body otherwise).
CREATE OR REPLACE FUNCTION onejob.outbox_fan_out() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO onejob.outbox_deliveries (event_id, owner_id, publisher, seq, subject, created_at)
  SELECT n.id, n.owner_id, p.name, n.seq, n.subject, n.created_at
  FROM new_rows n CROSS JOIN onejob.outbox_publishers p;
  RETURN NULL;
END $$;
