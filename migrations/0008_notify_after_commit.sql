-- Wake-ups move out of the writing transactions. PostgreSQL takes a global lock when a
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
