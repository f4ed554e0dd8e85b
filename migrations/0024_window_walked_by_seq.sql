-- A publisher more than a batch behind walks a window of the log (the events visible in
-- `window_end` and not in `done`) in seq order. Each pass found the next events of the
-- window by reading the whole window again from the xid index and sorting it: a backlog of
-- n events cost about n * n / batchSize rows read before it was drained, so a relay
-- catching up after a broker outage slowed as the outage grew.
--
-- The public events by seq let a pass read only its batch: the seqs after `window_seq` and
-- up to `window_last`, the highest seq of an event in the window (the pass that opens the
-- window finds it), in index order, each checked against the two snapshots. One more index
-- entry per public event; the xid index stays for the passes without a window (the events
-- of transactions still running when `done` was taken, and those after it).
--
-- Cost on a large database: one index build over the public events (CREATE INDEX takes a
-- SHARE lock: writers of events wait until it is built) and a nullable column.
CREATE INDEX job_events_public_by_seq ON onejob.job_events (seq) WHERE publish IS NOT NULL;

ALTER TABLE onejob.outbox_publishers ADD COLUMN window_last bigint;
-- A window opened before this migration has no bound: its next pass reads it as before,
-- once, and records the bound (claimFromPosition.ts).
