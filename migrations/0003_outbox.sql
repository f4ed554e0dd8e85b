-- Outbox delivery: one row per (event, publisher), so each broker or endpoint tracks its
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
