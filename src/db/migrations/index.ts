// Generated from migrations/*.sql by scripts/generateMigrations.mjs: do not edit.
// `npm run build` regenerates it; test/db/migrationsModule.test.ts checks that it matches.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: '0001_core',
    sql: `-- Core model: jobs (one per owner and idempotency key), attempts (tries at one job),
-- an append-only audit of job events, the transactional outbox, and tombstones that
-- keep archived idempotency keys answering forever.

CREATE TABLE onejob.jobs (
  id               uuid        PRIMARY KEY,
  owner_id         text        NOT NULL,
  idempotency_key  text        NOT NULL,
  -- SHA-256 (hex) of the RFC 8785 canonical JSON of {operation, input}.
  fingerprint      text        NOT NULL,
  operation        text        NOT NULL,
  input            jsonb       NOT NULL,
  state            text        NOT NULL DEFAULT 'queued'
                   CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'unknown', 'cancelled')),
  -- Compare-and-swap token. Starting an attempt leaves it alone; completing,
  -- failing, cancelling and abandoning bump it.
  version          integer     NOT NULL DEFAULT 1,
  completed_by     uuid,
  result           jsonb,
  error            jsonb,
  -- Number of the latest attempt (attempt n values are 1..attempt_count).
  attempt_count    integer     NOT NULL DEFAULT 0,
  -- Earliest time a worker may claim the job (retry backoff).
  run_after        timestamptz NOT NULL DEFAULT now(),
  traceparent      text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz,
  CONSTRAINT jobs_owner_key_unique UNIQUE (owner_id, idempotency_key),
  CONSTRAINT jobs_key_length CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  CONSTRAINT jobs_winner_only_when_succeeded CHECK (completed_by IS NULL OR state = 'succeeded')
);

CREATE INDEX jobs_owner_newest ON onejob.jobs (owner_id, created_at DESC, id DESC);
CREATE INDEX jobs_claimable ON onejob.jobs (run_after, created_at) WHERE state = 'queued';
CREATE INDEX jobs_finished ON onejob.jobs (finished_at) WHERE finished_at IS NOT NULL;

CREATE TABLE onejob.attempts (
  id                uuid        PRIMARY KEY,
  job_id            uuid        NOT NULL REFERENCES onejob.jobs (id) ON DELETE CASCADE,
  n                 integer     NOT NULL CHECK (n >= 1),
  provider          text        NOT NULL,
  -- Copied from the operation's effect at start: exclusive attempts never overlap.
  exclusive         boolean     NOT NULL,
  -- Why the attempt exists: the worker's first try, a retry, a hedge, the API's fallback button.
  origin            text        NOT NULL DEFAULT 'worker'
                    CHECK (origin IN ('worker', 'retry', 'hedge', 'manual', 'reconcile')),
  state             text        NOT NULL DEFAULT 'starting'
                    CHECK (state IN ('starting', 'running', 'succeeded', 'failed', 'unknown', 'lost_race', 'abandoned')),
  -- The job version read when the attempt started: the CAS token for completion.
  job_version       integer     NOT NULL,
  lease_owner       text,
  lease_expires_at  timestamptz,
  deadline_at       timestamptz,
  started_at        timestamptz NOT NULL DEFAULT now(),
  finished_at       timestamptz,
  error             jsonb,
  -- SHA-256 of a discarded payload (lost race, abandoned): audit without keeping the data.
  result_digest     text,
  -- Output kept for diagnosis when it broke the operation's contract.
  rejected_output   jsonb,
  usage             jsonb,
  cost_micros       bigint,
  CONSTRAINT attempts_job_n_unique UNIQUE (job_id, n)
);

-- The database, not the worker, guarantees that an exclusive job never has two live
-- attempts: a second INSERT (or a revival to a live state) fails with a unique violation.
CREATE UNIQUE INDEX attempts_one_live_exclusive ON onejob.attempts (job_id)
  WHERE exclusive AND state IN ('starting', 'running', 'unknown');
CREATE INDEX attempts_leases ON onejob.attempts (lease_expires_at) WHERE state IN ('starting', 'running');
CREATE INDEX attempts_unknown ON onejob.attempts (job_id) WHERE state = 'unknown';

-- Append-only audit of everything that happened to a job, including races and abandons.
CREATE TABLE onejob.job_events (
  id          uuid        PRIMARY KEY,
  seq         bigint      GENERATED ALWAYS AS IDENTITY,
  job_id      uuid        NOT NULL,
  attempt_id  uuid,
  type        text        NOT NULL,
  data        jsonb       NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_events_by_job ON onejob.job_events (job_id, seq);

-- Events waiting to leave the database. Written in the same transaction as the change
-- they describe; a relay publishes them afterwards. \`id\` is the CloudEvent id.
CREATE TABLE onejob.outbox (
  id          uuid        PRIMARY KEY,
  seq         bigint      GENERATED ALWAYS AS IDENTITY,
  -- Events of one subject (a job id) are published in seq order.
  subject     text        NOT NULL,
  type        text        NOT NULL,
  event       jsonb       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_by_subject ON onejob.outbox (subject, seq);

-- What is left of an archived job: enough to answer a retry of its key forever.
CREATE TABLE onejob.job_tombstones (
  owner_id         text        NOT NULL,
  idempotency_key  text        NOT NULL,
  fingerprint      text        NOT NULL,
  job_id           uuid        NOT NULL UNIQUE,
  operation        text        NOT NULL,
  final_state      text        NOT NULL,
  created_at       timestamptz NOT NULL,
  finished_at      timestamptz,
  archived_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner_id, idempotency_key)
);

-- The full representation of archived jobs, out of the hot tables.
CREATE TABLE onejob.jobs_archive (
  job_id       uuid        PRIMARY KEY,
  owner_id     text        NOT NULL,
  doc          jsonb       NOT NULL,
  archived_at  timestamptz NOT NULL DEFAULT now()
);

-- A key that was archived must never start a second job. The check runs after the
-- row passed the unique index, in a fresh snapshot (volatile plpgsql), so an archival
-- that committed between the INSERT's snapshot and its unique check is still seen.
CREATE FUNCTION onejob.refuse_archived_key() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM onejob.job_tombstones t
             WHERE t.owner_id = NEW.owner_id AND t.idempotency_key = NEW.idempotency_key) THEN
    RAISE EXCEPTION 'idempotency key % of owner % belongs to an archived job', NEW.idempotency_key, NEW.owner_id
      USING ERRCODE = 'OJ001';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER jobs_refuse_archived_key AFTER INSERT ON onejob.jobs
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_archived_key();

-- History is not edited: audit rows can only be inserted.
CREATE FUNCTION onejob.refuse_history_edit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% on %.% is not allowed: the table is append-only', TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
    USING ERRCODE = 'OJ002';
END $$;

CREATE TRIGGER job_events_append_only BEFORE UPDATE OR DELETE ON onejob.job_events
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_history_edit();
CREATE TRIGGER job_events_no_truncate BEFORE TRUNCATE ON onejob.job_events
  FOR EACH STATEMENT EXECUTE FUNCTION onejob.refuse_history_edit();

-- Wake long-polling readers (GET /v1/jobs/{id}?waitMs) when a job settles.
CREATE FUNCTION onejob.notify_job_settled() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('onejob_job_settled', NEW.id::text);
  RETURN NULL;
END $$;

CREATE TRIGGER jobs_notify_settled AFTER UPDATE OF state ON onejob.jobs
  FOR EACH ROW WHEN (NEW.state IN ('succeeded', 'failed', 'cancelled', 'unknown') AND OLD.state IS DISTINCT FROM NEW.state)
  EXECUTE FUNCTION onejob.notify_job_settled();
`,
  },
  {
    version: 2,
    name: '0002_attempts',
    sql: `-- The attempt engine: state transitions enforced by the database itself, and the index
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
`,
  },
  {
    version: 3,
    name: '0003_outbox',
    sql: `-- Outbox delivery: one row per (event, publisher), so each broker or endpoint tracks its
-- own progress, retries and dead letters. Rows are created by a trigger on onejob.outbox,
-- so every writer of the outbox (job intake, job events, library users' own events) fans
-- out without knowing which publishers exist. A consumer inbox table backs the
-- exactly-once consumer helper.

-- Publishers a relay has run. A new name is registered under a SHARE lock on the outbox
-- (see registerPublishers.ts), so no event can be written between the backfill and the
-- moment new writers see the publisher.
CREATE TABLE onejob.outbox_publishers (
  name           text        PRIMARY KEY,
  kind           text        NOT NULL,
  registered_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE onejob.outbox_deliveries (
  event_id         uuid        NOT NULL REFERENCES onejob.outbox (id) ON DELETE CASCADE,
  publisher        text        NOT NULL,
  -- Copies of the event's seq and subject: per-subject order is decided on this table alone.
  seq              bigint      NOT NULL,
  subject          text        NOT NULL,
  state            text        NOT NULL DEFAULT 'pending'
                   CHECK (state IN ('pending', 'published', 'dead')),
  -- Tries the broker or endpoint refused; a broker that is down does not count.
  attempts         integer     NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  last_error       text,
  -- Times an operator sent the dead letter back to pending.
  replays          integer     NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL,
  published_at     timestamptz,
  dead_at          timestamptz,
  PRIMARY KEY (event_id, publisher),
  CONSTRAINT outbox_deliveries_published_at CHECK ((state = 'published') = (published_at IS NOT NULL)),
  CONSTRAINT outbox_deliveries_dead_at CHECK ((state = 'dead') = (dead_at IS NOT NULL))
);

-- Claiming walks the pending rows of one publisher in seq order; the per-subject index
-- answers "is an earlier event of this subject still pending?".
CREATE INDEX outbox_deliveries_pending ON onejob.outbox_deliveries (publisher, seq) WHERE state = 'pending';
CREATE INDEX outbox_deliveries_pending_subject ON onejob.outbox_deliveries (publisher, subject, seq) WHERE state = 'pending';
CREATE INDEX outbox_deliveries_dead ON onejob.outbox_deliveries (dead_at DESC, event_id DESC, publisher DESC) WHERE state = 'dead';
-- Retention cleanup deletes old outbox rows in creation order.
CREATE INDEX outbox_created ON onejob.outbox (created_at);

-- One statement-level trigger per INSERT (including the CTE in job intake): one fan-out
-- INSERT and one notification per statement, not per row. pg_notify is delivered at
-- commit, so a relay never wakes for a row it cannot see yet.
CREATE FUNCTION onejob.outbox_fan_out() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO onejob.outbox_deliveries (event_id, publisher, seq, subject, created_at)
  SELECT n.id, p.name, n.seq, n.subject, n.created_at
  FROM new_rows n CROSS JOIN onejob.outbox_publishers p;
  IF FOUND THEN
    PERFORM pg_notify('onejob_outbox', '');
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER outbox_fan_out AFTER INSERT ON onejob.outbox
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION onejob.outbox_fan_out();

-- Exactly-once effect for consumers: the consumer inserts the event id here in the same
-- transaction as its own writes; a redelivery meets the primary key and does nothing.
CREATE TABLE onejob.consumer_inbox (
  consumer     text        NOT NULL,
  event_id     text        NOT NULL,
  event_type   text,
  consumed_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);
CREATE INDEX consumer_inbox_consumed ON onejob.consumer_inbox (consumer, consumed_at);
`,
  },
  {
    version: 4,
    name: '0004_inbox',
    sql: `-- Webhook inbox: one row per (source, event id), whatever the number of deliveries.
-- The primary key is the deduplication: the first delivery inserts the row and creates
-- the job in the same transaction; every later delivery finds the row and gets the
-- stored response back.

CREATE TABLE onejob.inbox_events (
  source             text        NOT NULL,
  event_id           text        NOT NULL,
  owner_id           text        NOT NULL,
  -- Null only inside the first delivery's own transaction, between claiming the event
  -- and creating its job; a committed row always has all three. No foreign key:
  -- archival moves finished jobs out of onejob.jobs, and the stored response must keep
  -- answering redeliveries after that.
  job_id             uuid,
  response_status    integer,
  response_body      jsonb,
  -- SHA-256 (hex) of the first delivery's raw body, for audit only: the event id alone
  -- is the key, so a redelivery with another body still gets the stored response.
  payload_digest     text        NOT NULL,
  deliveries         integer     NOT NULL DEFAULT 1 CHECK (deliveries >= 1),
  -- Redeliveries whose raw body differed from the first one (a sender bug worth seeing).
  differing_payloads integer     NOT NULL DEFAULT 0,
  first_received_at  timestamptz NOT NULL DEFAULT now(),
  last_received_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT inbox_events_pkey PRIMARY KEY (source, event_id),
  CONSTRAINT inbox_events_event_id_length CHECK (length(event_id) BETWEEN 1 AND 255),
  CONSTRAINT inbox_events_response_whole CHECK ((job_id IS NULL) = (response_body IS NULL)
                                                AND (response_status IS NULL) = (response_body IS NULL))
);

CREATE INDEX inbox_events_newest ON onejob.inbox_events (first_received_at DESC);
`,
  },
  {
    version: 5,
    name: '0005_ledger',
    sql: `-- Append-only double-entry ledger. A transfer moves \`amount\` (integer minor units) from
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
`,
  },
  {
    version: 6,
    name: '0006_providers',
    sql: `-- Contract verifications: a provider proving, per operation, that it honours the
-- operation's output contract through its own tokenizer and adapter. The failover gate
-- reads the latest row for the current contract hash; rows are history and never edited.

CREATE TABLE onejob.provider_verifications (
  id             uuid        PRIMARY KEY,
  provider       text        NOT NULL,
  operation      text        NOT NULL,
  -- SHA-256 (hex) of the RFC 8785 canonical JSON of {prompt, outputSchema, rules, model}:
  -- changing any of them makes this verification stale.
  contract_hash  text        NOT NULL CHECK (contract_hash ~ '^[0-9a-f]{64}$'),
  model          text,
  passed         boolean     NOT NULL,
  -- Each check of each fixture with its evidence (see docs/providers.md).
  report         jsonb       NOT NULL,
  -- Who asked: the CLI, the HTTP API, or a library caller.
  requested_by   text        NOT NULL DEFAULT 'api',
  started_at     timestamptz NOT NULL,
  finished_at    timestamptz NOT NULL DEFAULT now()
);

-- The gate's question: the latest verification of (provider, operation, contract hash).
CREATE INDEX provider_verifications_latest
  ON onejob.provider_verifications (provider, operation, contract_hash, finished_at DESC, id DESC);
-- The status matrix: the latest verification of (provider, operation) under any hash.
CREATE INDEX provider_verifications_by_pair
  ON onejob.provider_verifications (provider, operation, finished_at DESC, id DESC);

CREATE TRIGGER provider_verifications_append_only BEFORE UPDATE OR DELETE ON onejob.provider_verifications
  FOR EACH ROW EXECUTE FUNCTION onejob.refuse_history_edit();
`,
  },
  {
    version: 7,
    name: '0007_attempt_costs',
    sql: `-- Attempt costs go to the ledger once the attempt is over. The flag lets the cost poster
-- find the few unposted attempts through a small partial index instead of scanning history.
ALTER TABLE onejob.attempts ADD COLUMN cost_posted_at timestamptz;

CREATE INDEX attempts_cost_unposted ON onejob.attempts (finished_at)
  WHERE cost_micros > 0 AND cost_posted_at IS NULL
    AND state IN ('succeeded', 'failed', 'lost_race', 'abandoned');
`,
  },
  {
    version: 8,
    name: '0008_notify_after_commit',
    sql: `-- Wake-ups move out of the writing transactions. PostgreSQL takes a global lock when a
-- transaction that issued NOTIFY commits and holds it through the WAL flush, so every
-- job-creating or job-settling transaction that notified committed one at a time: group
-- commit stopped and intake fell to about one commit per flush. Writers now notify after
-- their commit, coalesced per process (src/events/wakeups.ts); relays and long-polls keep
-- their polls for the wake-ups that are lost or come from a caller's own transaction.

-- The fan-out stays in the inserting statement (a publisher registered later is
-- backfilled under a SHARE lock, see registerPublishers.ts); only the notification goes.
CREATE OR REPLACE FUNCTION onejob.outbox_fan_out() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO onejob.outbox_deliveries (event_id, publisher, seq, subject, created_at)
  SELECT n.id, p.name, n.seq, n.subject, n.created_at
  FROM new_rows n CROSS JOIN onejob.outbox_publishers p;
  RETURN NULL;
END $$;

-- The settled trigger did nothing but notify.
DROP TRIGGER jobs_notify_settled ON onejob.jobs;
DROP FUNCTION onejob.notify_job_settled();
`,
  },
  {
    version: 9,
    name: '0009_ledger_safety',
    sql: `-- Two guards for a ledger shared by many owners.
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
`,
  },
  {
    version: 10,
    name: '0010_ledger_totals_per_statement',
    sql: `-- The account totals of 0009 are raised once per account per statement, not once per
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
`,
  },
  {
    version: 11,
    name: '0011_indexes_for_kept_plans',
    sql: `-- Indexes for plans a session keeps. onejob's hot statements and PostgreSQL's foreign-key
-- checks are planned once per connection and the plan is kept until ANALYZE. Planned on a
-- new database, before any statistics, two indexes that match a lookup only on its leading
-- column cost the same as the unique index that matches it whole, and a kept plan that
-- chose them reads every row under that leading column for each lookup: a cost that grows
-- with the table (docs/operations.md, "Statistics and plans"; test/db/queryPlans.test.ts).

-- 1. A transfer is reversed at most once: 0005 made (owner_id, reverses) a UNIQUE
-- constraint. Its index matched the check every ledger entry runs against its transfer
-- (owner_id = $1 AND id = $2) on owner_id, and a session that kept that plan read all of
-- the owner's transfers per entry (measured: a batch of 64 transfers went from 7 ms to
-- 300 ms over 19,200 transfers in one session). Partial, the index holds only reversals
-- and can serve only a query that names \`reverses\`. Uniqueness is the same (rows without
-- \`reverses\` never conflicted) and so is the name, so a second reversal is refused under
-- the same constraint name. The ALTER locks the table until this migration commits.
ALTER TABLE onejob.ledger_transfers DROP CONSTRAINT ledger_transfers_reversed_once;
CREATE UNIQUE INDEX ledger_transfers_reversed_once ON onejob.ledger_transfers (owner_id, reverses)
  WHERE reverses IS NOT NULL;

-- 2. The owner's listing index matched the look-up of a job by (owner_id, idempotency_key)
-- on owner_id, and a kept plan read every job of the owner for each create or replay. Its
-- predicate is always true (created_at is NOT NULL), but PostgreSQL uses a partial index
-- only for a query that states the predicate: the listing does (src/jobs/listJobs.ts), the
-- look-up by key does not, so it always uses the unique index.
DROP INDEX onejob.jobs_owner_newest;
CREATE INDEX jobs_owner_newest ON onejob.jobs (owner_id, created_at DESC, id DESC)
  WHERE created_at IS NOT NULL;

-- 3. Each worker recounts the onejob_jobs_unknown gauge every 10 s
-- (src/attempts/workerHousekeeping.ts). Without an index on the state, that count read the
-- whole jobs table: 20 ms at 60,000 jobs on a small machine, and in proportion beyond, per
-- worker, forever. Unknown jobs are few and short-lived (a reconciliation settles them), so
-- a partial index holding only them keeps the count at the size of the answer.
CREATE INDEX jobs_unknown ON onejob.jobs (id) WHERE state = 'unknown';
`,
  },
  {
    version: 12,
    name: '0012_owner_in_every_key',
    sql: `-- Every row of a tenant's data carries its owner, and every key includes it: what
-- distributing the tables by owner_id (Citus \`create_distributed_table(<table>, 'owner_id')\`)
-- requires, and what lets each statement that names an owner reach a single shard
-- (docs/scaling.md, "Citus"). \`id\` stays the leading column of each key, so a look-up by id
-- alone keeps its index.
--
-- Cost on a large database (docs/operations.md, "Upgrading to migration 0012"): the
-- backfill rewrites every row of attempts, job_events, outbox and outbox_deliveries (each
-- table grows to about twice its size until VACUUM reclaims the old versions); SET NOT NULL
-- scans each of them, and every new key builds its unique index and every new foreign key
-- checks each row, all under an ACCESS EXCLUSIVE lock held until this migration commits.
-- Nothing reads or writes those tables meanwhile: plan a maintenance window, archive and
-- clean up the outbox first to make the tables small, and stop every process of an older
-- version (its writes name no owner and would fail after this migration).

-- 1. The owner of a job's children, copied from the job. Added without a default, so the
-- column is added without rewriting the table; the UPDATEs below fill it.
ALTER TABLE onejob.attempts ADD COLUMN owner_id text;
ALTER TABLE onejob.job_events ADD COLUMN owner_id text;
ALTER TABLE onejob.outbox ADD COLUMN owner_id text;
ALTER TABLE onejob.outbox_deliveries ADD COLUMN owner_id text;

UPDATE onejob.attempts a SET owner_id = j.owner_id FROM onejob.jobs j WHERE j.id = a.job_id;

-- The audit is append-only (0001's trigger refuses any UPDATE); filling a new column is
-- the one edit it ever gets, inside this migration's transaction.
ALTER TABLE onejob.job_events DISABLE TRIGGER job_events_append_only;
UPDATE onejob.job_events e SET owner_id = j.owner_id FROM onejob.jobs j WHERE j.id = e.job_id;
UPDATE onejob.job_events e SET owner_id = a.owner_id
  FROM onejob.jobs_archive a WHERE e.owner_id IS NULL AND a.job_id = e.job_id;
-- Events of a job that is nowhere any more cannot exist (archival keeps the job), but a
-- NOT NULL column must hold something: the owner of events that name no tenant.
UPDATE onejob.job_events SET owner_id = '' WHERE owner_id IS NULL;
ALTER TABLE onejob.job_events ENABLE TRIGGER job_events_append_only;

-- A job's events have the job id as subject; an event published by your own code belongs
-- to the owner '' unless it names one (src/outbox/publishEvent.ts).
UPDATE onejob.outbox o SET owner_id = j.owner_id FROM onejob.jobs j WHERE o.subject = j.id::text;
UPDATE onejob.outbox o SET owner_id = a.owner_id
  FROM onejob.jobs_archive a WHERE o.owner_id IS NULL AND o.subject = a.job_id::text;
UPDATE onejob.outbox SET owner_id = '' WHERE owner_id IS NULL;
UPDATE onejob.outbox_deliveries d SET owner_id = o.owner_id FROM onejob.outbox o WHERE o.id = d.event_id;

ALTER TABLE onejob.attempts ALTER COLUMN owner_id SET NOT NULL;
ALTER TABLE onejob.job_events ALTER COLUMN owner_id SET NOT NULL;
ALTER TABLE onejob.outbox ALTER COLUMN owner_id SET NOT NULL;
ALTER TABLE onejob.outbox_deliveries ALTER COLUMN owner_id SET NOT NULL;

-- 2. Keys with the owner. The foreign keys go first: they depend on the keys they reference.
ALTER TABLE onejob.attempts DROP CONSTRAINT attempts_job_id_fkey;
ALTER TABLE onejob.outbox_deliveries DROP CONSTRAINT outbox_deliveries_event_id_fkey;

ALTER TABLE onejob.jobs DROP CONSTRAINT jobs_pkey, ADD CONSTRAINT jobs_pkey PRIMARY KEY (id, owner_id);

ALTER TABLE onejob.attempts DROP CONSTRAINT attempts_pkey, ADD CONSTRAINT attempts_pkey PRIMARY KEY (id, owner_id);
ALTER TABLE onejob.attempts DROP CONSTRAINT attempts_job_n_unique,
  ADD CONSTRAINT attempts_job_n_unique UNIQUE (job_id, n, owner_id);
-- Still one live exclusive attempt per job: a job's attempts all carry the job's owner.
DROP INDEX onejob.attempts_one_live_exclusive;
CREATE UNIQUE INDEX attempts_one_live_exclusive ON onejob.attempts (job_id, owner_id)
  WHERE exclusive AND state IN ('starting', 'running', 'unknown');
ALTER TABLE onejob.attempts ADD CONSTRAINT attempts_job_fkey FOREIGN KEY (job_id, owner_id)
  REFERENCES onejob.jobs (id, owner_id) ON DELETE CASCADE;

ALTER TABLE onejob.job_events DROP CONSTRAINT job_events_pkey, ADD CONSTRAINT job_events_pkey PRIMARY KEY (id, owner_id);

ALTER TABLE onejob.outbox DROP CONSTRAINT outbox_pkey, ADD CONSTRAINT outbox_pkey PRIMARY KEY (id, owner_id);
ALTER TABLE onejob.outbox_deliveries DROP CONSTRAINT outbox_deliveries_pkey,
  ADD CONSTRAINT outbox_deliveries_pkey PRIMARY KEY (event_id, publisher, owner_id);
ALTER TABLE onejob.outbox_deliveries ADD CONSTRAINT outbox_deliveries_event_fkey FOREIGN KEY (event_id, owner_id)
  REFERENCES onejob.outbox (id, owner_id) ON DELETE CASCADE;

ALTER TABLE onejob.job_tombstones DROP CONSTRAINT job_tombstones_job_id_key,
  ADD CONSTRAINT job_tombstones_job_id_key UNIQUE (job_id, owner_id);
ALTER TABLE onejob.jobs_archive DROP CONSTRAINT jobs_archive_pkey,
  ADD CONSTRAINT jobs_archive_pkey PRIMARY KEY (job_id, owner_id);

-- An event id is unique per source and owner: a source whose owner changes accepts its old
-- event ids again, for the new owner (docs/scaling.md).
ALTER TABLE onejob.inbox_events DROP CONSTRAINT inbox_events_pkey,
  ADD CONSTRAINT inbox_events_pkey PRIMARY KEY (source, event_id, owner_id);

-- 3. The fan-out copies the event's owner to each of its deliveries (0008's body otherwise).
CREATE OR REPLACE FUNCTION onejob.outbox_fan_out() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO onejob.outbox_deliveries (event_id, owner_id, publisher, seq, subject, created_at)
  SELECT n.id, n.owner_id, p.name, n.seq, n.subject, n.created_at
  FROM new_rows n CROSS JOIN onejob.outbox_publishers p;
  RETURN NULL;
END $$;
`,
  },
  {
    version: 14,
    name: '0014_fair_and_paced_work',
    sql: `-- Fair and paced work: the claim serves owners in turn, keeps each owner within its share
-- of running attempts, and keeps each provider within its concurrency and out of its
-- pauses, across every worker process on the database (docs/attempts.md, "Who runs next").

-- 1. The claim walks the distinct owners that have queued jobs (a skip-scan: one probe per
-- owner, never the backlog) and, per owner, its oldest claimable jobs in order.
CREATE INDEX jobs_claimable_by_owner ON onejob.jobs (owner_id, run_after, created_at)
  WHERE state = 'queued';

-- 2. An owner's running share is counted from its live attempts, at most the cap of them.
CREATE INDEX attempts_live_by_owner ON onejob.attempts (owner_id)
  WHERE state IN ('starting', 'running');

-- 3. Attempts that met a provider's pause (429 or 503 with Retry-After) did nothing and do
-- not use up maxAttempts: the job counts them apart. A constant default adds the column
-- without rewriting the table.
ALTER TABLE onejob.jobs ADD COLUMN throttled_count integer NOT NULL DEFAULT 0;

-- 4. A provider's concurrency: one row per slot (1..maxConcurrency, made by each worker at
-- start). A claim takes a free slot under its row lock (FOR UPDATE SKIP LOCKED), so two
-- claims never take the same one, and names the attempt that holds it. A slot is free when
-- nobody holds it, or its holder is no longer starting or running under a valid lease:
-- finished, unknown, never committed, or its worker gone.
CREATE TABLE onejob.provider_slots (
  provider  text        NOT NULL,
  slot_no   integer     NOT NULL CHECK (slot_no >= 1),
  holder    uuid,
  taken_at  timestamptz,
  PRIMARY KEY (provider, slot_no)
);

-- 5. A provider that answered 429 or 503 with Retry-After is called by no worker until \`until\`.
CREATE TABLE onejob.provider_pauses (
  provider    text        PRIMARY KEY,
  until       timestamptz NOT NULL,
  since       timestamptz NOT NULL DEFAULT now(),
  -- The answer that paused it: its HTTP status and the attempt that met it.
  status      integer,
  attempt_id  uuid
);
`,
  },
  {
    version: 15,
    name: '0015_jobs_run_at',
    sql: `-- The instant a job was asked to wait for (\`runAt\` on intake), kept as asked. The claim
-- reads run_after, which intake sets to the later of runAt and the time of intake, and
-- which a retry's backoff moves; run_at is what the job view shows. Added without a
-- default: existing rows read NULL (no runAt was asked) and the table is not rewritten.
ALTER TABLE onejob.jobs ADD COLUMN run_at timestamptz;
`,
  },
];
