-- Indexes for plans a session keeps. onejob's hot statements and PostgreSQL's foreign-key
-- checks are planned once per connection and the plan is kept until ANALYZE. Planned on a
-- new database, before any statistics, two indexes that match a lookup only on its leading
-- column cost the same as the unique index that matches it whole, and a kept plan that
-- chose them reads every row under that leading column for each lookup: a cost that grows
-- with the table (docs/operations.md, "Statistics and plans"; test/db/queryPlans.test.ts).

-- 1. A transfer is reversed at most once: 0005 made (owner_id, reverses) a UNIQUE
-- constraint. Its index matched the check every ledger entry runs against its transfer
-- (owner_id = $1 AND id = $2) on owner_id, and a session that kept that plan read all of
-- the owner's transfers per entry (measured: a batch of 64 transfers went from 7 ms to
-- 300 ms over 19,200 transfers in one session). Partial, the index holds only reversals
-- and can serve only a query that names `reverses`. Uniqueness is the same (rows without
-- `reverses` never conflicted) and so is the name, so a second reversal is refused under
-- the same constraint name. The ALTER locks the table until this migration commits.
ALTER TABLE onejob.ledger_transfers DROP CONSTRAINT ledger_transfers_reversed_once;
CREATE UNIQUE INDEX ledger_transfers_reversed_once ON onejob.ledger_transfers (owner_id, reverses)
  WHERE reverses IS NOT NULL;

-- 2. The owner's listing index matched the look-up of a job by (owner_id, idempotency_key)
-- on owner_id, and a kept plan read every job of the owner for each create or replay. Its
-- predicate is always true (created_at is NOT NULL), but PostgreSQL uses a partial index
-- only for a query that states the predicate: the listing does (src/jobs/listJobs.ts), the
-- look-up by key does not, so it always uses the unique index.
DROP INDEX onejob.jobs_owner_newest;
CREATE INDEX jobs_owner_newest ON onejob.jobs (owner_id, created_at DESC, id DESC)
  WHERE created_at IS NOT NULL;

-- 3. Each worker recounts the onejob_jobs_unknown gauge every 10 s
-- (src/attempts/workerHousekeeping.ts). Without an index on the state, that count read the
-- whole jobs table: 20 ms at 60,000 jobs on a small machine, and in proportion beyond, per
-- worker, forever. Unknown jobs are few and short-lived (a reconciliation settles them), so
-- a partial index holding only them keeps the count at the size of the answer.
CREATE INDEX jobs_unknown ON onejob.jobs (id) WHERE state = 'unknown';
