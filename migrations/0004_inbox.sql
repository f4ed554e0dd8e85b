-- Webhook inbox: one row per (source, event id), whatever the number of deliveries.
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
