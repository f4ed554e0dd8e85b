-- Whether a provider slot's holder still holds it, read in a fresh snapshot. A claim that
-- finds a slot row locked by another claim skips it; but when that claim has just
-- committed, the row is re-read with its new holder while the attempt that holder names,
-- inserted by the same commit, is not in the claim statement's snapshot: a check written
-- in SQL would see no such attempt, take the slot as free and start one call too many. A
-- volatile plpgsql function runs its query in a snapshot of its own, taken now, which
-- sees that attempt (as 0001's refuse_archived_key sees an archival).
CREATE FUNCTION onejob.provider_slot_held(holder uuid) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN holder IS NOT NULL AND EXISTS (
    SELECT 1 FROM onejob.attempts a
    WHERE a.id = holder AND a.state IN ('starting', 'running') AND a.lease_expires_at > now());
END $$;
