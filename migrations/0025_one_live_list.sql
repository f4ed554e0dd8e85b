-- One list of live attempts instead of two. `attempts_leases` (lease_expires_at) served the
-- sweep for lapsed leases and `attempts_live_by_owner` (owner_id) the owners' shares of the
-- running slots; both listed the same rows, the starting and running attempts, so every
-- attempt wrote an entry into each when it started (and each lease renewal rewrote the
-- first). One index keyed (owner_id, lease_expires_at) serves both:
-- - an owner's live attempts are a range of it (the claim counts at most maxSlotsPerOwner);
-- - the sweep reads it whole, comparing lease_expires_at in the index: it holds only live
--   attempts, as many as the fleet's workers run at once, not the table.
-- One entry fewer per attempt: about 65 bytes of WAL per drained job.
--
-- Cost (docs/operations.md, "Upgrading to migration 0025"): a plain CREATE INDEX over the
-- live attempts only, moments; it blocks writes to attempts while it runs.
CREATE INDEX attempts_live ON onejob.attempts (owner_id, lease_expires_at)
  WHERE state IN ('starting', 'running');
DROP INDEX onejob.attempts_leases;
DROP INDEX onejob.attempts_live_by_owner;
