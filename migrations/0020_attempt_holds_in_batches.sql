-- The holds of a batch of claimed attempts, taken in one statement and one commit. An
-- owner's holds queue on its budget usage row and its cost accounts' totals (0013); taken
-- one transaction per attempt, each waits for the commit before it, and a drain of one
-- owner's priced jobs ran at a commit per hold. Here the batch takes each row lock once.
-- Attempts are visited by owner, then id, so two batches in flight lock owners in one
-- order. Each hold is its own subtransaction: one that does not fit (OJ010) is reported
-- and leaves nothing, and the others stand.
CREATE FUNCTION onejob.take_attempt_holds(holds jsonb)
RETURNS TABLE (attempt_id uuid, outcome text, detail text)
LANGUAGE plpgsql AS $$
DECLARE
  h record;
  debit text;
  credit text;
  unit text;
BEGIN
  FOR h IN
    SELECT x.attempt_id, x.job_id, x.provider, x.amount, x.currency, a.owner_id
    FROM jsonb_to_recordset(holds) AS x (attempt_id uuid, job_id uuid, provider text, amount bigint, currency text)
    JOIN onejob.attempts a ON a.id = x.attempt_id AND a.state IN ('starting', 'running')
    ORDER BY a.owner_id, x.attempt_id
    FOR NO KEY UPDATE OF a
  LOOP
    unit := h.currency || '_MICROS';
    debit := 'usage:' || unit;
    credit := 'provider:' || h.provider || ':' || unit;
    attempt_id := h.attempt_id;
    detail := NULL;
    INSERT INTO onejob.ledger_accounts (owner_id, account, currency)
    VALUES (h.owner_id, debit, unit), (h.owner_id, credit, unit)
    ON CONFLICT DO NOTHING;
    BEGIN
      INSERT INTO onejob.ledger_pending_transfers (owner_id, id, debit_account, credit_account, amount, currency, reference)
      VALUES (h.owner_id, 'attempt-cost:' || h.attempt_id::text, debit, credit, h.amount, unit, 'job:' || h.job_id::text);
      UPDATE onejob.attempts SET hold_micros = h.amount WHERE id = h.attempt_id;
      outcome := 'held';
    EXCEPTION WHEN SQLSTATE 'OJ010' THEN
      outcome := 'refused';
      GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    END;
    RETURN NEXT;
  END LOOP;
END $$;
