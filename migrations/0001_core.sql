-- Core model: jobs (one per owner and idempotency key), attempts (tries at one job),
-- an append-only audit of job events, the transactional outbox, and tombstones that
-- keep archived idempotency keys answering forever.

CREATE TABLE onejob.jobs (
  id               uuid        PRIMARY KEY,
  owner_id         text        NOT NULL,
  idempotency_key  text        NOT NULL,
  -- SHA-256 (hex) of the RFC 8785 canonical JSON of {operation, input}.
  fingerprint      text        NOT NULL,
  operation        text        NOT NULL,
  input            jsonb       NOT NULL,
  state            text        NOT NULL DEFAULT 'queued'
                   CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'unknown', 'cancelled')),
  -- Compare-and-swap token. Starting an attempt leaves it alone; completing,
  -- failing, cancelling and abandoning bump it.
  version          integer     NOT NULL DEFAULT 1,
  completed_by     uuid,
  result           jsonb,
  error            jsonb,
  -- Number of the latest attempt (attempt n values are 1..attempt_count).
  attempt_count    integer     NOT NULL DEFAULT 0,
  -- Earliest time a worker may claim the job (retry backoff).
  run_after        timestamptz NOT NULL DEFAULT now(),
  traceparent      text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz,
  CONSTRAINT jobs_owner_key_unique UNIQUE (owner_id, idempotency_key),
  CONSTRAINT jobs_key_length CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  CONSTRAINT jobs_winner_only_when_succeeded CHECK (completed_by IS NULL OR state = 'succeeded')
);

CREATE INDEX jobs_owner_newest ON onejob.jobs (owner_id, created_at DESC, id DESC);
CREATE INDEX jobs_claimable ON onejob.jobs (run_after, created_at) WHERE state = 'queued';
CREATE INDEX jobs_finished ON onejob.jobs (finished_at) WHERE finished_at IS NOT NULL;

CREATE TABLE onejob.attempts (
  id                uuid        PRIMARY KEY,
  job_id            uuid        NOT NULL REFERENCES onejob.jobs (id) ON DELETE CASCADE,
  n                 integer     NOT NULL CHECK (n >= 1),
  provider          text        NOT NULL,
  -- Copied from the operation's effect at start: exclusive attempts never overlap.
  exclusive         boolean     NOT NULL,
  -- Why the attempt exists: the worker's first try, a retry, a hedge, the API's fallback button.
  origin            text        NOT NULL DEFAULT 'worker'
                    CHECK (origin IN ('worker', 'retry', 'hedge', 'manual', 'reconcile')),
  state             text        NOT NULL DEFAULT 'starting'
                    CHECK (state IN ('starting', 'running', 'succeeded', 'failed', 'unknown', 'lost_race', 'abandoned')),
  -- The job version read when the attempt started: the CAS token for completion.
  job_version       integer     NOT NULL,
  lease_owner       text,
  lease_expires_at  timestamptz,
  deadline_at       timestamptz,
  started_at        timestamptz NOT NULL DEFAULT now(),
  finished_at       timestamptz,
  error             jsonb,
  -- SHA-256 of a discarded payload (lost race, abandoned): audit without keeping the data.
  result_digest     text,
  -- Output kept for diagnosis when it broke the operation's contract.
  rejected_output   jsonb,
  usage             jsonb,
  cost_micros       bigint,
  CONSTRAINT attempts_job_n_unique UNIQUE (job_id, n)
);

-- The database, not the worker, guarantees that an exclusive job never has two live
-- attempts: a second INSERT (or a revival to a live state) fails with a unique violation.
CREATE UNIQUE INDEX attempts_one_live_exclusive ON onejob.attempts (job_id)
  WHERE exclusive AND state IN ('starting', 'running', 'unknown');
CREATE INDEX attempts_leases ON onejob.attempts (lease_expires_at) WHERE state IN ('starting', 'running');
CREATE INDEX attempts_unknown ON onejob.attempts (job_id) WHERE state = 'unknown';

-- Append-only audit of everything that happened to a job, including races and abandons.
CREATE TABLE onejob.job_events (
  id          uuid        PRIMARY KEY,
  seq         bigint      GENERATED ALWAYS AS IDENTITY,
  job_id      uuid        NOT NULL,
  attempt_id  uuid,
  type        text        NOT NULL,
  data        jsonb       NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_events_by_job ON onejob.job_events (job_id, seq);

-- Events waiting to leave the database. Written in the same transaction as the change
-- they describe; a relay publishes them afterwards. `id` is the CloudEvent id.
CREATE TABLE onejob.outbox (
  id          uuid        PRIMARY KEY,
  seq         bigint      GENERATED ALWAYS AS IDENTITY,
  -- Events of one subject (a job id) are published in seq order.
  subject     text        NOT NULL,
  type        text        NOT NULL,
  event       jsonb       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_by_subject ON onejob.outbox (subject, seq);

-- What is left of an archived job: enough to answer a retry of its key forever.
CREATE TABLE onejob.job_tombstones (
  owner_id         text        NOT NULL,
  idempotency_key  text        NOT NULL,
  fingerprint      text        NOT NULL,
  job_id           uuid        NOT NULL UNIQUE,
  operation        text        NOT NULL,
  final_state      text        NOT NULL,
  created_at       timestamptz NOT NULL,
  finished_at      timestamptz,
  archived_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner_id, idempotency_key)
);

-- The full representation of archived jobs, out of the hot tables.
CREATE TABLE onejob.jobs_archive (
  job_id       uuid        PRIMARY KEY,
  owner_id     text        NOT NULL,
  doc          jsonb       NOT NULL,
  archived_at  timestamptz NOT NULL DEFAULT now()
);

-- A key that was archived must never start a second job. The check runs after the
-- row passed the unique index, in a fresh snapshot (volatile plpgsql), so an archival
-- that committed between the INSERT's snapshot and its unique check is still seen.
CREATE FUNCTION onejob.refuse_archived_key() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM onejob.job_tombstones t
             WHERE t.owner_id = NEW.owner_id AND t.idempotency_key = NEW.idempotency_key) THEN
    RAISE EXCEPTION 'idempotency key % of owner % belongs to an archived job', NEW.idempotency_key, NEW.owner_id
      USING ERRCODE = 'OJ001';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER jobs_refuse_archived_key AFTER INSERT ON onejob.jobs
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_archived_key();

-- History is not edited: audit rows can only be inserted.
CREATE FUNCTION onejob.refuse_history_edit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% on %.% is not allowed: the table is append-only', TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
    USING ERRCODE = 'OJ002';
END $$;

CREATE TRIGGER job_events_append_only BEFORE UPDATE OR DELETE ON onejob.job_events
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_history_edit();
CREATE TRIGGER job_events_no_truncate BEFORE TRUNCATE ON onejob.job_events
  FOR EACH STATEMENT EXECUTE FUNCTION onejob.refuse_history_edit();

-- Wake long-polling readers (GET /v1/jobs/{id}?waitMs) when a job settles.
CREATE FUNCTION onejob.notify_job_settled() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('onejob_job_settled', NEW.id::text);
  RETURN NULL;
END $$;

CREATE TRIGGER jobs_notify_settled AFTER UPDATE OF state ON onejob.jobs
  FOR EACH ROW WHEN (NEW.state IN ('succeeded', 'failed', 'cancelled', 'unknown') AND OLD.state IS DISTINCT FROM NEW.state)
  EXECUTE FUNCTION onejob.notify_job_settled();
