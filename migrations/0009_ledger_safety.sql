-- Two guards for a ledger shared by many owners.
--
-- 1. Amounts stay exact. JavaScript reads amounts as numbers, exact only up to
--    2^53 - 1 (Number.MAX_SAFE_INTEGER). Each account keeps its all-time debit and credit
--    totals here, raised by the transfer's own INSERT: the upsert locks the totals row, so
--    concurrent transfers into one account are added one after the other, and the CHECK
--    refuses the transfer that would take either total past 2^53 - 1. A balance
--    (credits - debits) and every as-of sum are then within range too, and the account
--    stays readable. Balances are still computed from entries; these totals only guard.
-- 2. Attempt costs that cannot be posted are recorded on the attempt and skipped, so one
--    owner's broken account never holds up every other owner's costs.

CREATE TABLE onejob.ledger_account_totals (
  owner_id  text    NOT NULL,
  account   text    NOT NULL,
  debits    numeric NOT NULL DEFAULT 0,
  credits   numeric NOT NULL DEFAULT 0,
  CONSTRAINT ledger_account_totals_pkey PRIMARY KEY (owner_id, account)
);

-- Accounts of one transfer are upserted in name order, like the accounts themselves, so
-- two transfers touching the same pair of accounts cannot deadlock.
CREATE FUNCTION onejob.ledger_add_to_totals() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO onejob.ledger_account_totals AS t (owner_id, account, debits, credits)
  SELECT NEW.owner_id, x.account, x.debits, x.credits
  FROM (VALUES (NEW.debit_account, NEW.amount::numeric, 0::numeric),
               (NEW.credit_account, 0::numeric, NEW.amount::numeric)) AS x (account, debits, credits)
  ORDER BY x.account
  ON CONFLICT (owner_id, account) DO UPDATE
    SET debits = t.debits + EXCLUDED.debits, credits = t.credits + EXCLUDED.credits;
  RETURN NULL;
END $$;

-- Block transfers until this migration commits, so the backfill below sees every one.
LOCK TABLE onejob.ledger_transfers IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER ledger_transfers_add_to_totals AFTER INSERT ON onejob.ledger_transfers
  FOR EACH ROW EXECUTE FUNCTION onejob.ledger_add_to_totals();

INSERT INTO onejob.ledger_account_totals (owner_id, account, debits, credits)
SELECT owner_id, account,
       coalesce(sum(amount) FILTER (WHERE side = 'debit'), 0),
       coalesce(sum(amount) FILTER (WHERE side = 'credit'), 0)
FROM onejob.ledger_entries
GROUP BY owner_id, account;

-- NOT VALID: an account already past the limit (written before this migration) keeps its
-- row, and every further transfer into it is refused.
ALTER TABLE onejob.ledger_account_totals ADD CONSTRAINT ledger_account_totals_safe
  CHECK (debits <= 9007199254740991 AND credits <= 9007199254740991) NOT VALID;

-- Why an attempt's cost could not be posted (redacted), and when. Set, the cost poster
-- skips the attempt until an operator clears it (retryCostPosts).
ALTER TABLE onejob.attempts ADD COLUMN cost_post_error text, ADD COLUMN cost_post_failed_at timestamptz;

DROP INDEX onejob.attempts_cost_unposted;
CREATE INDEX attempts_cost_unposted ON onejob.attempts (finished_at)
  WHERE cost_micros > 0 AND cost_posted_at IS NULL AND cost_post_error IS NULL
    AND state IN ('succeeded', 'failed', 'lost_race', 'abandoned');
CREATE INDEX attempts_cost_post_failed ON onejob.attempts (cost_post_failed_at)
  WHERE cost_post_error IS NOT NULL AND cost_posted_at IS NULL;
