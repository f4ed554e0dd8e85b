-- An attempt whose hold is voided (abandoned, or ended with no cost known) is no longer
-- marked as posted: a cost it reported before the abandon (an ambiguous answer still
-- priced) or reports later (a late answer) is posted by the cost poster, as it was before
-- holds existed, so the ledger keeps every cost a provider charged. A posted hold still
-- marks the attempt: the poster never posts it twice.
CREATE OR REPLACE FUNCTION onejob.attempt_resolve_hold() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  p onejob.ledger_pending_transfers%ROWTYPE;
  posted bigint;
BEGIN
  SELECT * INTO p FROM onejob.ledger_pending_transfers
  WHERE owner_id = NEW.owner_id AND id = 'attempt-cost:' || NEW.id::text;
  IF NOT FOUND OR EXISTS (SELECT 1 FROM onejob.ledger_pending_resolutions r
                          WHERE r.owner_id = p.owner_id AND r.pending_id = p.id) THEN
    RETURN NEW;
  END IF;
  posted := CASE WHEN NEW.state = 'abandoned' THEN 0 ELSE least(greatest(coalesce(NEW.cost_micros, 0), 0), p.amount) END;
  INSERT INTO onejob.ledger_pending_resolutions (owner_id, pending_id, action, amount, reason)
  VALUES (p.owner_id, p.id, CASE WHEN posted > 0 THEN 'post' ELSE 'void' END, posted, 'attempt ' || NEW.state);
  IF posted > 0 THEN
    -- Posted with its outcome: the cost poster has nothing left to do for it.
    NEW.cost_posted_at := now();
  END IF;
  RETURN NEW;
END $$;
