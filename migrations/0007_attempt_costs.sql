-- Attempt costs go to the ledger once the attempt is over. The flag lets the cost poster
-- find the few unposted attempts through a small partial index instead of scanning history.
ALTER TABLE onejob.attempts ADD COLUMN cost_posted_at timestamptz;

CREATE INDEX attempts_cost_unposted ON onejob.attempts (finished_at)
  WHERE cost_micros > 0 AND cost_posted_at IS NULL
    AND state IN ('succeeded', 'failed', 'lost_race', 'abandoned');
