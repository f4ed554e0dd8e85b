-- The attempt engine: state transitions enforced by the database itself, and the index
-- workers use to find attempts started through the API that no worker has picked up yet.

-- Legal transitions, the same table as src/attempts/stateMachine.ts (a test compares them).
-- An UPDATE that would make any other move fails, whatever code issues it.
CREATE FUNCTION onejob.refuse_illegal_attempt_transition() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state = OLD.state THEN
    RETURN NEW;
  END IF;
  IF (OLD.state = 'starting' AND NEW.state IN ('running', 'failed', 'lost_race', 'abandoned'))
     OR (OLD.state = 'running' AND NEW.state IN ('succeeded', 'failed', 'unknown', 'lost_race', 'abandoned'))
     OR (OLD.state = 'unknown' AND NEW.state IN ('succeeded', 'failed', 'lost_race', 'abandoned')) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'attempt % cannot move from % to %', OLD.id, OLD.state, NEW.state
    USING ERRCODE = 'OJ003';
END $$;

CREATE TRIGGER attempts_legal_transitions BEFORE UPDATE OF state ON onejob.attempts
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_illegal_attempt_transition();

CREATE FUNCTION onejob.refuse_illegal_job_transition() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state = OLD.state THEN
    RETURN NEW;
  END IF;
  IF OLD.state IN ('queued', 'running', 'unknown') THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'job % cannot move from % to %: % is final', OLD.id, OLD.state, NEW.state, OLD.state
    USING ERRCODE = 'OJ003';
END $$;

CREATE TRIGGER jobs_legal_transitions BEFORE UPDATE OF state ON onejob.jobs
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_illegal_job_transition();

-- Attempts started through the API wait here, unowned, until a worker takes them.
CREATE INDEX attempts_unclaimed ON onejob.attempts (started_at) WHERE state = 'starting' AND lease_owner IS NULL;
