-- Fair and paced work: the claim serves owners in turn, keeps each owner within its share
-- of running attempts, and keeps each provider within its concurrency and out of its
-- pauses, across every worker process on the database (docs/attempts.md, "Who runs next").

-- 1. The claim walks the distinct owners that have queued jobs (a skip-scan: one probe per
-- owner, never the backlog) and, per owner, its oldest claimable jobs in order.
CREATE INDEX jobs_claimable_by_owner ON onejob.jobs (owner_id, run_after, created_at)
  WHERE state = 'queued';

-- 2. An owner's running share is counted from its live attempts, at most the cap of them.
CREATE INDEX attempts_live_by_owner ON onejob.attempts (owner_id)
  WHERE state IN ('starting', 'running');

-- 3. Attempts that met a provider's pause (429 or 503 with Retry-After) did nothing and do
-- not use up maxAttempts: the job counts them apart. A constant default adds the column
-- without rewriting the table.
ALTER TABLE onejob.jobs ADD COLUMN throttled_count integer NOT NULL DEFAULT 0;

-- 4. A provider's concurrency: one row per slot (1..maxConcurrency, made by each worker at
-- start). A claim takes a free slot under its row lock (FOR UPDATE SKIP LOCKED), so two
-- claims never take the same one, and names the attempt that holds it. A slot is free when
-- nobody holds it, or its holder is no longer starting or running under a valid lease:
-- finished, unknown, never committed, or its worker gone.
CREATE TABLE onejob.provider_slots (
  provider  text        NOT NULL,
  slot_no   integer     NOT NULL CHECK (slot_no >= 1),
  holder    uuid,
  taken_at  timestamptz,
  PRIMARY KEY (provider, slot_no)
);

-- 5. A provider that answered 429 or 503 with Retry-After is called by no worker until `until`.
CREATE TABLE onejob.provider_pauses (
  provider    text        PRIMARY KEY,
  until       timestamptz NOT NULL,
  since       timestamptz NOT NULL DEFAULT now(),
  -- The answer that paused it: its HTTP status and the attempt that met it.
  status      integer,
  attempt_id  uuid
);
