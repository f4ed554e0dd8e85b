-- The account totals of 0009 are raised once per account per statement, not once per
-- transfer. A statement that records many transfers (group commit, src/ledger/
-- createTransfersBatch.ts) among a few busy accounts would otherwise update each totals
-- row once per transfer inside one transaction, every update a new row version that no
-- later update in the transaction can prune. Summed per statement, a batch writes each
-- totals row once, in (owner, account) order, and the CHECK sees the same final totals.
CREATE FUNCTION onejob.ledger_add_statement_to_totals() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO onejob.ledger_account_totals AS t (owner_id, account, debits, credits)
  SELECT x.owner_id, x.account, sum(x.debits), sum(x.credits)
  FROM (
    SELECT n.owner_id, n.debit_account AS account, n.amount::numeric AS debits, 0::numeric AS credits
    FROM new_transfers n
    UNION ALL
    SELECT n.owner_id, n.credit_account, 0::numeric, n.amount::numeric
    FROM new_transfers n
  ) AS x
  GROUP BY x.owner_id, x.account
  ORDER BY x.owner_id, x.account
  ON CONFLICT (owner_id, account) DO UPDATE
    SET debits = t.debits + EXCLUDED.debits, credits = t.credits + EXCLUDED.credits;
  RETURN NULL;
END $$;

-- Swapped inside this migration's transaction: no transfer commits between the two.
DROP TRIGGER ledger_transfers_add_to_totals ON onejob.ledger_transfers;
DROP FUNCTION onejob.ledger_add_to_totals();
CREATE TRIGGER ledger_transfers_add_to_totals AFTER INSERT ON onejob.ledger_transfers
  REFERENCING NEW TABLE AS new_transfers
  FOR EACH STATEMENT EXECUTE FUNCTION onejob.ledger_add_statement_to_totals();
