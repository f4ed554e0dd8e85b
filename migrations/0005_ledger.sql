-- Append-only double-entry ledger. A transfer moves `amount` (integer minor units) from
-- its debit account to its credit account; a trigger writes its two entries, so no code
-- path can write half a transfer. Nothing here is ever updated or deleted: a mistake is
-- corrected by a reversal, a new transfer that mirrors the original and links to it.

CREATE TABLE onejob.ledger_accounts (
  owner_id    text        NOT NULL,
  account     text        NOT NULL,
  currency    text        NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ledger_accounts_pkey PRIMARY KEY (owner_id, account),
  -- Target of the transfers' currency foreign keys: a transfer's currency must be the
  -- currency of both of its accounts, and the database checks it.
  CONSTRAINT ledger_accounts_currency_key UNIQUE (owner_id, account, currency),
  CONSTRAINT ledger_accounts_name CHECK (account ~ '^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,199}$'),
  CONSTRAINT ledger_accounts_currency CHECK (currency ~ '^[A-Z][A-Z0-9_]{1,15}$')
);

CREATE TABLE onejob.ledger_transfers (
  owner_id        text        NOT NULL,
  id              text        NOT NULL,
  seq             bigint      GENERATED ALWAYS AS IDENTITY,
  debit_account   text        NOT NULL,
  credit_account  text        NOT NULL,
  amount          bigint      NOT NULL,
  currency        text        NOT NULL,
  reference       text,
  -- Business time, as the client states it (null: the same as recorded_at).
  effective_at    timestamptz,
  -- When the database learnt of the transfer, to the microsecond. Set by the trigger
  -- below, never by a client.
  recorded_at     timestamptz NOT NULL,
  -- Set on a reversal: the id of the transfer it compensates, and why.
  reverses        text,
  reason          text,
  CONSTRAINT ledger_transfers_pkey PRIMARY KEY (owner_id, id),
  CONSTRAINT ledger_transfers_id CHECK (id ~ '^[A-Za-z0-9_.:@-]{1,255}$'),
  CONSTRAINT ledger_transfers_amount_positive CHECK (amount > 0),
  CONSTRAINT ledger_transfers_distinct_accounts CHECK (debit_account <> credit_account),
  CONSTRAINT ledger_transfers_reversal_has_reason CHECK (reverses IS NULL OR reason IS NOT NULL),
  CONSTRAINT ledger_transfers_debit_currency_fkey FOREIGN KEY (owner_id, debit_account, currency)
    REFERENCES onejob.ledger_accounts (owner_id, account, currency),
  CONSTRAINT ledger_transfers_credit_currency_fkey FOREIGN KEY (owner_id, credit_account, currency)
    REFERENCES onejob.ledger_accounts (owner_id, account, currency),
  CONSTRAINT ledger_transfers_reverses_fkey FOREIGN KEY (owner_id, reverses)
    REFERENCES onejob.ledger_transfers (owner_id, id),
  -- A transfer is reversed at most once, whatever the race between two reversals.
  CONSTRAINT ledger_transfers_reversed_once UNIQUE (owner_id, reverses)
);

CREATE TABLE onejob.ledger_entries (
  owner_id      text        NOT NULL,
  transfer_id   text        NOT NULL,
  seq           bigint      GENERATED ALWAYS AS IDENTITY,
  account       text        NOT NULL,
  -- The other account of the transfer, so an entry reads on its own.
  counterparty  text        NOT NULL,
  side          text        NOT NULL CHECK (side IN ('debit', 'credit')),
  amount        bigint      NOT NULL CHECK (amount > 0),
  currency      text        NOT NULL,
  effective_at  timestamptz,
  recorded_at   timestamptz NOT NULL,
  CONSTRAINT ledger_entries_pkey PRIMARY KEY (owner_id, transfer_id, side),
  CONSTRAINT ledger_entries_transfer_fkey FOREIGN KEY (owner_id, transfer_id)
    REFERENCES onejob.ledger_transfers (owner_id, id)
);

-- Balances are sums of entries; this index answers them (as of any instant) from the index alone.
CREATE INDEX ledger_entries_by_account ON onejob.ledger_entries (owner_id, account, recorded_at)
  INCLUDE (side, amount);

-- The database stamps recorded_at (no backdating) and checks that a reversal mirrors
-- the transfer it reverses.
CREATE FUNCTION onejob.ledger_transfer_before_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  original onejob.ledger_transfers%ROWTYPE;
BEGIN
  NEW.recorded_at := clock_timestamp();
  IF NEW.reverses IS NOT NULL THEN
    SELECT * INTO original FROM onejob.ledger_transfers t
      WHERE t.owner_id = NEW.owner_id AND t.id = NEW.reverses;
    IF FOUND AND (NEW.debit_account <> original.credit_account OR NEW.credit_account <> original.debit_account
                  OR NEW.amount <> original.amount OR NEW.currency <> original.currency) THEN
      RAISE EXCEPTION 'transfer % does not mirror transfer % that it reverses', NEW.id, NEW.reverses
        USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_transfers_reversal_mirrors';
    END IF;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER ledger_transfers_before_insert BEFORE INSERT ON onejob.ledger_transfers
  FOR EACH ROW EXECUTE FUNCTION onejob.ledger_transfer_before_insert();

-- Double entry: every transfer writes exactly its debit and its credit entry.
CREATE FUNCTION onejob.ledger_write_entries() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO onejob.ledger_entries
    (owner_id, transfer_id, account, counterparty, side, amount, currency, effective_at, recorded_at)
  VALUES
    (NEW.owner_id, NEW.id, NEW.debit_account, NEW.credit_account, 'debit', NEW.amount, NEW.currency, NEW.effective_at, NEW.recorded_at),
    (NEW.owner_id, NEW.id, NEW.credit_account, NEW.debit_account, 'credit', NEW.amount, NEW.currency, NEW.effective_at, NEW.recorded_at);
  RETURN NULL;
END $$;

CREATE TRIGGER ledger_transfers_write_entries AFTER INSERT ON onejob.ledger_transfers
  FOR EACH ROW EXECUTE FUNCTION onejob.ledger_write_entries();

-- Entries come from the trigger above only (trigger depth 2 here); a direct INSERT could
-- write one side of a transfer and unbalance the books.
CREATE FUNCTION onejob.ledger_refuse_direct_entry() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF pg_trigger_depth() < 2 THEN
    RAISE EXCEPTION 'ledger entries are written by inserting a transfer, never directly'
      USING ERRCODE = 'OJ002';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER ledger_entries_from_transfers_only BEFORE INSERT ON onejob.ledger_entries
  FOR EACH ROW EXECUTE FUNCTION onejob.ledger_refuse_direct_entry();

-- History is not edited.
CREATE TRIGGER ledger_accounts_append_only BEFORE UPDATE OR DELETE ON onejob.ledger_accounts
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_history_edit();
CREATE TRIGGER ledger_accounts_no_truncate BEFORE TRUNCATE ON onejob.ledger_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION onejob.refuse_history_edit();
CREATE TRIGGER ledger_transfers_append_only BEFORE UPDATE OR DELETE ON onejob.ledger_transfers
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_history_edit();
CREATE TRIGGER ledger_transfers_no_truncate BEFORE TRUNCATE ON onejob.ledger_transfers
  FOR EACH STATEMENT EXECUTE FUNCTION onejob.refuse_history_edit();
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON onejob.ledger_entries
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_history_edit();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON onejob.ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION onejob.refuse_history_edit();
