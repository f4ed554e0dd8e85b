-- Settling a job rewrites its row in place. PostgreSQL updates a row without touching its
-- indexes (a heap-only tuple, HOT) only when no indexed column changes value, and a column
-- named in a partial index's WHERE counts as indexed. Every jobs index that named `state`
-- or `finished_at` made the settlement (running to succeeded, failed or cancelled) write a
-- new entry into each of the table's indexes: about 330 bytes of WAL per job.
--
-- `lane` says which work list a job is on: the claim's ('queued') or the reconciler's
-- ('unknown'), and none while it runs or once it is settled. It changes when a job is
-- claimed, retried or marked unknown, which rewrite index entries anyway, and not when a
-- running job settles. The partial indexes name `lane` instead of `state`. `jobs_finished`
-- goes: archiving reads each owner's oldest jobs from jobs_owner_newest (a job finished
-- before a cutoff was created before it).
--
-- Cost on a large database (docs/operations.md, "Upgrading to migration 0022"): adding a
-- stored generated column rewrites the jobs table and its indexes under an ACCESS
-- EXCLUSIVE lock. It needs a window.
ALTER TABLE onejob.jobs
  ADD COLUMN lane text GENERATED ALWAYS AS (CASE WHEN state IN ('queued', 'unknown') THEN state END) STORED;

DROP INDEX onejob.jobs_claimable;
DROP INDEX onejob.jobs_claimable_by_owner;
DROP INDEX onejob.jobs_unknown;
DROP INDEX onejob.jobs_finished;
CREATE INDEX jobs_claimable ON onejob.jobs (run_after, created_at) WHERE lane = 'queued';
CREATE INDEX jobs_claimable_by_owner ON onejob.jobs (owner_id, run_after, created_at) WHERE lane = 'queued';
CREATE INDEX jobs_unknown ON onejob.jobs (id) WHERE lane = 'unknown';
-- Room on each page for a settled version beside the claimed one, so the settlement
-- stays on its page (HOT needs the same page); pruning frees the older versions.
ALTER TABLE onejob.jobs SET (fillfactor = 70);
