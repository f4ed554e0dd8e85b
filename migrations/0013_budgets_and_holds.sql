-- Two-phase transfers and budgets.
--
-- A pending transfer holds an amount against its accounts without moving it. It is
-- resolved once, by a row of its own: posted (a real transfer of at most the held amount,
-- with the pending transfer's id; the rest is released) or voided (all released). Nothing
-- is updated in place; the unique key of the resolution makes a second one impossible.
--
-- A budget limits what an owner's engine holds and spends per currency and period. The
-- usage row of a period is changed only by the triggers below, in the transaction that
-- inserts the hold or its resolution: the counter cannot drift from the rows it counts.
-- A hold that would take spent + held past the limit raises OJ010 and writes nothing.

CREATE TABLE onejob.ledger_pending_transfers (
  owner_id             text        NOT NULL,
  id                   text        NOT NULL,
  debit_account        text        NOT NULL,
  credit_account       text        NOT NULL,
  amount               bigint      NOT NULL,
  currency             text        NOT NULL,
  reference            text,
  recorded_at          timestamptz NOT NULL,
  -- The budget period the hold counts in; null when the owner had no budget for it.
  budget_period        text,
  budget_period_start  timestamptz,
  CONSTRAINT ledger_pending_transfers_pkey PRIMARY KEY (owner_id, id),
  CONSTRAINT ledger_pending_transfers_id CHECK (id ~ '^[A-Za-z0-9_.:@-]{1,255}$'),
  CONSTRAINT ledger_pending_transfers_amount_positive CHECK (amount > 0),
  CONSTRAINT ledger_pending_transfers_distinct_accounts CHECK (debit_account <> credit_account),
  CONSTRAINT ledger_pending_transfers_debit_currency_fkey FOREIGN KEY (owner_id, debit_account, currency)
    REFERENCES onejob.ledger_accounts (owner_id, account, currency),
  CONSTRAINT ledger_pending_transfers_credit_currency_fkey FOREIGN KEY (owner_id, credit_account, currency)
    REFERENCES onejob.ledger_accounts (owner_id, account, currency)
);

CREATE TABLE onejob.ledger_pending_resolutions (
  owner_id     text        NOT NULL,
  pending_id   text        NOT NULL,
  action       text        NOT NULL CHECK (action IN ('post', 'void')),
  -- What was posted (0 for a void); the rest of the hold was released.
  amount       bigint      NOT NULL CHECK (amount >= 0),
  reason       text,
  recorded_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- One resolution per pending transfer, whatever the race between two.
  CONSTRAINT ledger_pending_resolutions_pkey PRIMARY KEY (owner_id, pending_id),
  CONSTRAINT ledger_pending_resolutions_pending_fkey FOREIGN KEY (owner_id, pending_id)
    REFERENCES onejob.ledger_pending_transfers (owner_id, id),
  CONSTRAINT ledger_pending_resolutions_void_is_zero CHECK ((action = 'void') = (amount = 0))
);

-- Held amounts per account, beside the posted totals of 0009, kept by the triggers below.
ALTER TABLE onejob.ledger_account_totals
  ADD COLUMN pending_debits numeric NOT NULL DEFAULT 0,
  ADD COLUMN pending_credits numeric NOT NULL DEFAULT 0;

CREATE TABLE onejob.budgets (
  owner_id      text        NOT NULL,
  currency      text        NOT NULL,
  limit_micros  bigint      NOT NULL CHECK (limit_micros >= 0),
  period        text        NOT NULL CHECK (period IN ('total', 'day', 'month')),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT budgets_pkey PRIMARY KEY (owner_id, currency),
  CONSTRAINT budgets_currency CHECK (currency ~ '^[A-Z]{3}$')
);

CREATE TABLE onejob.budget_usage (
  owner_id      text        NOT NULL,
  currency      text        NOT NULL,
  period        text        NOT NULL,
  period_start  timestamptz NOT NULL,
  spent_micros  bigint      NOT NULL DEFAULT 0,
  held_micros   bigint      NOT NULL DEFAULT 0 CHECK (held_micros >= 0),
  CONSTRAINT budget_usage_pkey PRIMARY KEY (owner_id, currency, period, period_start)
);

-- The start of the UTC period that holds `at`; a total budget has one period.
CREATE FUNCTION onejob.budget_period_start(period text, at timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE period
    WHEN 'day' THEN date_trunc('day', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    WHEN 'month' THEN date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    ELSE timestamptz '1970-01-01 00:00:00+00'
  END
$$;

-- The budget currency an engine hold debits: `usage:USD_MICROS` counts against USD.
CREATE FUNCTION onejob.budget_currency_of(account text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT substring(account FROM '^usage:([A-Z]{3})_MICROS$')
$$;

-- The clock the budget periods read. Tests move it with `SET onejob.budget_now`, so a
-- day boundary is crossed without waiting for one.
CREATE FUNCTION onejob.budget_now() RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT coalesce(nullif(current_setting('onejob.budget_now', true), '')::timestamptz, clock_timestamp())
$$;

-- A hold is admitted or refused here, under the usage row's lock: concurrent holds of one
-- owner queue on it, and each re-checks the limit against the row the previous one left
-- (READ COMMITTED re-evaluates the WHERE on the new row version after the wait).
CREATE FUNCTION onejob.ledger_pending_before_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  cur text;
  b onejob.budgets%ROWTYPE;
  start timestamptz;
  usage_row onejob.budget_usage%ROWTYPE;
BEGIN
  NEW.recorded_at := clock_timestamp();
  NEW.budget_period := NULL;
  NEW.budget_period_start := NULL;
  cur := onejob.budget_currency_of(NEW.debit_account);
  IF cur IS NULL THEN
    RETURN NEW;
  END IF;
  -- FOR SHARE: a budget change waits for holds in flight and the next hold reads the change.
  SELECT * INTO b FROM onejob.budgets WHERE owner_id = NEW.owner_id AND currency = cur FOR SHARE;
  IF NOT FOUND THEN
    RETURN NEW;
  END IF;
  start := onejob.budget_period_start(b.period, onejob.budget_now());
  INSERT INTO onejob.budget_usage (owner_id, currency, period, period_start)
  VALUES (NEW.owner_id, cur, b.period, start) ON CONFLICT DO NOTHING;
  UPDATE onejob.budget_usage u SET held_micros = u.held_micros + NEW.amount
  WHERE u.owner_id = NEW.owner_id AND u.currency = cur AND u.period = b.period AND u.period_start = start
    AND u.spent_micros + u.held_micros + NEW.amount <= b.limit_micros
  RETURNING * INTO usage_row;
  IF NOT FOUND THEN
    SELECT * INTO usage_row FROM onejob.budget_usage u
    WHERE u.owner_id = NEW.owner_id AND u.currency = cur AND u.period = b.period AND u.period_start = start;
    RAISE EXCEPTION 'budget exhausted: % of % micros available, % needed',
        greatest(b.limit_micros - usage_row.spent_micros - usage_row.held_micros, 0), b.limit_micros, NEW.amount
      USING ERRCODE = 'OJ010',
        DETAIL = json_build_object(
          'limitMicros', b.limit_micros, 'spentMicros', usage_row.spent_micros,
          'heldMicros', usage_row.held_micros, 'neededMicros', NEW.amount, 'currency', cur)::text;
  END IF;
  NEW.budget_period := b.period;
  NEW.budget_period_start := start;
  RETURN NEW;
END $$;

CREATE TRIGGER ledger_pending_transfers_before_insert BEFORE INSERT ON onejob.ledger_pending_transfers
  FOR EACH ROW EXECUTE FUNCTION onejob.ledger_pending_before_insert();

CREATE FUNCTION onejob.ledger_pending_add_to_totals() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO onejob.ledger_account_totals AS t (owner_id, account, pending_debits, pending_credits)
  SELECT NEW.owner_id, x.account, x.d, x.c
  FROM (VALUES (NEW.debit_account, NEW.amount::numeric, 0::numeric),
               (NEW.credit_account, 0::numeric, NEW.amount::numeric)) AS x (account, d, c)
  ORDER BY x.account
  ON CONFLICT (owner_id, account) DO UPDATE
    SET pending_debits = t.pending_debits + EXCLUDED.pending_debits,
        pending_credits = t.pending_credits + EXCLUDED.pending_credits;
  RETURN NULL;
END $$;

CREATE TRIGGER ledger_pending_transfers_add_to_totals AFTER INSERT ON onejob.ledger_pending_transfers
  FOR EACH ROW EXECUTE FUNCTION onejob.ledger_pending_add_to_totals();

-- A resolution is checked before it is written: at most the held amount is posted.
CREATE FUNCTION onejob.ledger_resolution_before_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  held bigint;
BEGIN
  NEW.recorded_at := clock_timestamp();
  SELECT amount INTO held FROM onejob.ledger_pending_transfers WHERE owner_id = NEW.owner_id AND id = NEW.pending_id;
  IF FOUND AND NEW.amount > held THEN
    RAISE EXCEPTION 'cannot post % of pending transfer % that holds %', NEW.amount, NEW.pending_id, held
      USING ERRCODE = 'OJ011';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER ledger_pending_resolutions_before_insert BEFORE INSERT ON onejob.ledger_pending_resolutions
  FOR EACH ROW EXECUTE FUNCTION onejob.ledger_resolution_before_insert();

-- Once written (its primary key has refused a second one), a resolution moves the
-- budget's held amount to spent in the hold's own period, releases the hold and posts the
-- transfer (the pending transfer's id, at most its amount). Rows are locked in the order a
-- hold locks them (budget usage, then account totals), so a hold and a resolution of one
-- owner never wait on each other in a circle.
CREATE FUNCTION onejob.ledger_resolution_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  p onejob.ledger_pending_transfers%ROWTYPE;
  cur text;
  b onejob.budgets%ROWTYPE;
BEGIN
  SELECT * INTO p FROM onejob.ledger_pending_transfers WHERE owner_id = NEW.owner_id AND id = NEW.pending_id;
  cur := onejob.budget_currency_of(p.debit_account);
  IF p.budget_period IS NOT NULL THEN
    UPDATE onejob.budget_usage u
    SET held_micros = u.held_micros - p.amount, spent_micros = u.spent_micros + NEW.amount
    WHERE u.owner_id = p.owner_id AND u.currency = cur AND u.period = p.budget_period
      AND u.period_start = p.budget_period_start;
  ELSIF cur IS NOT NULL AND NEW.amount > 0 THEN
    -- Held before the owner had a budget: spent in the budget's current period.
    SELECT * INTO b FROM onejob.budgets WHERE owner_id = p.owner_id AND currency = cur;
    IF FOUND THEN
      INSERT INTO onejob.budget_usage AS u (owner_id, currency, period, period_start, spent_micros)
      VALUES (p.owner_id, cur, b.period, onejob.budget_period_start(b.period, onejob.budget_now()), NEW.amount)
      ON CONFLICT (owner_id, currency, period, period_start)
        DO UPDATE SET spent_micros = u.spent_micros + EXCLUDED.spent_micros;
    END IF;
  END IF;
  -- In account order, as every totals change is made.
  UPDATE onejob.ledger_account_totals t
  SET pending_debits = t.pending_debits - CASE WHEN t.account = p.debit_account THEN p.amount ELSE 0 END,
      pending_credits = t.pending_credits - CASE WHEN t.account = p.credit_account THEN p.amount ELSE 0 END
  FROM (SELECT a.account FROM onejob.ledger_account_totals a
        WHERE a.owner_id = p.owner_id AND a.account IN (p.debit_account, p.credit_account)
        ORDER BY a.account FOR NO KEY UPDATE) o
  WHERE t.owner_id = p.owner_id AND t.account = o.account;
  IF NEW.action = 'post' THEN
    INSERT INTO onejob.ledger_transfers (owner_id, id, debit_account, credit_account, amount, currency, reference)
    VALUES (p.owner_id, p.id, p.debit_account, p.credit_account, NEW.amount, p.currency, p.reference);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER ledger_pending_resolutions_after_insert AFTER INSERT ON onejob.ledger_pending_resolutions
  FOR EACH ROW EXECUTE FUNCTION onejob.ledger_resolution_after_insert();

-- History is not edited.
CREATE TRIGGER ledger_pending_transfers_append_only BEFORE UPDATE OR DELETE ON onejob.ledger_pending_transfers
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_history_edit();
CREATE TRIGGER ledger_pending_transfers_no_truncate BEFORE TRUNCATE ON onejob.ledger_pending_transfers
  FOR EACH STATEMENT EXECUTE FUNCTION onejob.refuse_history_edit();
CREATE TRIGGER ledger_pending_resolutions_append_only BEFORE UPDATE OR DELETE ON onejob.ledger_pending_resolutions
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_history_edit();
CREATE TRIGGER ledger_pending_resolutions_no_truncate BEFORE TRUNCATE ON onejob.ledger_pending_resolutions
  FOR EACH STATEMENT EXECUTE FUNCTION onejob.refuse_history_edit();

-- An attempt's hold: the most its call can cost, taken before the call. When the attempt
-- ends, the trigger below posts what it cost (at most the hold) or voids the hold, in the
-- transaction that records the outcome, whichever code path records it. An unknown
-- attempt keeps its hold until it is resolved; an abandoned one voids it.
ALTER TABLE onejob.attempts ADD COLUMN hold_micros bigint;

CREATE FUNCTION onejob.attempt_resolve_hold() RETURNS trigger
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
  -- Posted with its outcome: the cost poster has nothing left to do for it.
  NEW.cost_posted_at := now();
  RETURN NEW;
END $$;

CREATE TRIGGER attempts_resolve_hold BEFORE UPDATE OF state ON onejob.attempts
  FOR EACH ROW
  WHEN (NEW.hold_micros IS NOT NULL AND OLD.state IS DISTINCT FROM NEW.state
        AND NEW.state IN ('succeeded', 'failed', 'lost_race', 'abandoned'))
  EXECUTE FUNCTION onejob.attempt_resolve_hold();
