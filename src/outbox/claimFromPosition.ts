// A publisher's position over the event log, in commit order (docs/outbox.md, "How it
// works"). The position is `done`, a snapshot: every event whose writing transaction is
// visible in it is behind the publisher. The events ahead are those visible in a later
// snapshot and not in `done`: exactly the transactions that committed in between, whatever
// their xids or seqs, so an event committed late by a long transaction is never passed.
// More than a batch ahead opens a window: the events visible in `window_end` and not in
// `done` are a fixed set (all committed), walked in seq order with `window_seq` the last
// seq behind; when it is walked, `done` becomes `window_end`.
import type pg from 'pg';
import { type ClaimedDelivery, claimedDelivery } from './claimOutboxBatch.js';

/** A publisher's position, as locked for one pass. */
export interface Position {
  done: string;
  /** The snapshot the pass reads up to: the open window's end, or the snapshot taken now. */
  upto: string;
  windowOpen: boolean;
  windowSeq: string;
}

/** An event ahead of the position, and whether its subject waits behind a delivery row. */
export interface LogEvent extends ClaimedDelivery {
  ownerId: string;
  /** An earlier event of this subject is pending for this publisher (a retry or a held event). */
  held: boolean;
}

// The position row is the publisher's lock: one pass per publisher at a time, across every
// relay process. SKIP LOCKED: a pass that finds it taken leaves it (and does the retry pass).
const LOCK_SQL = `
SELECT done::text, window_end::text, window_seq::text
FROM onejob.outbox_publishers WHERE name = $1
FOR UPDATE SKIP LOCKED`;

// Without an open window, the pass reads up to a snapshot taken now, after the lock: every
// transaction visible in it committed before, so every statement after it sees all of
// their rows, and it is never older than the `done` the previous pass committed. (Taken
// in the locking statement it could be: a statement's snapshot precedes the lock it
// waits for.)
const SNAPSHOT_SQL = `SELECT pg_current_snapshot()::text AS upto`;

// The public events ahead of the position, up to `upto`, in seq order: within a window
// every event is committed and its seq order is the order its subject's rows were written
// (a job's events are written under its row lock). An event not visible in `done` was
// written by a transaction still running when `done` was taken (its xip list) or by one
// that started after (from its xmax): two index probes, never the range from done's xmin,
// which a long transaction anywhere in the cluster holds back. Nothing at or above upto's
// xmax is visible in upto. An
// event with a retry row for this publisher already (one put there by hand) is the retry
// pass's, and passed over: a scalar subquery, one probe of its key per event, where NOT
// EXISTS was planned as an anti-join reading every retry row (claimOutboxBatch.ts says why).
const EVENTS_SQL = `
SELECT e.id, e.seq::text AS seq, coalesce(e.subject, e.job_id::text) AS subject, e.publish AS type,
       onejob.cloud_event(e.id, e.job_id, e.publish, e.data, e.event, e.created_at, e.traceparent)::text AS json, e.owner_id,
       EXISTS (SELECT 1 FROM onejob.outbox_retries d
               WHERE d.publisher = $1 AND d.subject = coalesce(e.subject, e.job_id::text) AND d.state = 'pending') AS held
FROM (
  SELECT * FROM onejob.job_events
  WHERE publish IS NOT NULL AND xid >= pg_snapshot_xmax($2::pg_snapshot) AND xid < pg_snapshot_xmax($3::pg_snapshot)
  UNION ALL
  SELECT * FROM onejob.job_events
  WHERE publish IS NOT NULL AND xid = ANY (ARRAY(SELECT pg_snapshot_xip($2::pg_snapshot)))
) e
WHERE pg_visible_in_snapshot(e.xid, $3::pg_snapshot)
  AND e.seq > $4::bigint
  AND (SELECT r.state FROM onejob.outbox_retries r
       WHERE r.event_id = e.id AND r.publisher = $1 AND r.owner_id = e.owner_id) IS NULL
ORDER BY e.seq
LIMIT $5`;

interface EventRow {
  id: string;
  seq: string;
  subject: string;
  type: string;
  json: string;
  owner_id: string;
  held: boolean;
}

/**
 * Locks `publisher`'s position in the caller's transaction and reads up to `limit` events
 * ahead of it. Null when another pass holds the position.
 */
export async function claimFromPosition(
  tx: pg.PoolClient,
  publisher: string,
  limit: number,
): Promise<{ position: Position; events: LogEvent[] } | null> {
  const { rows: locked } = await tx.query<{ done: string; window_end: string | null; window_seq: string }>(
    LOCK_SQL,
    [publisher],
  );
  const row = locked[0];
  if (!row) return null;
  const upto = row.window_end ?? (await tx.query<{ upto: string }>(SNAPSHOT_SQL)).rows[0]?.upto ?? row.done;
  const position: Position = {
    done: row.done,
    upto,
    windowOpen: row.window_end !== null,
    windowSeq: row.window_seq,
  };
  const { rows } = await tx.query<EventRow>(EVENTS_SQL, [
    publisher,
    position.done,
    position.upto,
    position.windowSeq,
    limit,
  ]);
  return { position, events: rows.map(logEvent) };
}

// Moves the position. `walked`: every event up to `upto` is settled, the window closes
// and `done` becomes `upto`. Otherwise the window stays open (or opens) at `upto`, with
// every event up to `seq` settled.
// Not moved (`moved` false): only the last error changes.
const ADVANCE_SQL = `
UPDATE onejob.outbox_publishers
SET done = CASE WHEN NOT $5 THEN done WHEN $2 THEN $3::pg_snapshot ELSE done END,
    window_end = CASE WHEN NOT $5 THEN window_end WHEN $2 THEN NULL ELSE $3::pg_snapshot END,
    window_seq = CASE WHEN NOT $5 THEN window_seq WHEN $2 THEN 0 ELSE $4::bigint END,
    last_error = $6
WHERE name = $1`;

/**
 * Records how far the pass got (see ADVANCE_SQL) and, when the broker could not be
 * reached, why: the last error of the events still ahead.
 */
export async function advancePosition(
  tx: pg.PoolClient,
  publisher: string,
  position: Position,
  progress: { moved: boolean; walked: boolean; seq: string; lastError: string | null },
): Promise<void> {
  await tx.query(ADVANCE_SQL, [
    publisher,
    progress.walked,
    position.upto,
    progress.seq,
    progress.moved,
    progress.lastError?.slice(0, 2000) ?? null,
  ]);
}

function logEvent(row: EventRow): LogEvent {
  // Object.assign keeps the delivery's lazy `event` getter; a spread would parse it now.
  return Object.assign(claimedDelivery({ ...row, attempts: 0 }), { ownerId: row.owner_id, held: row.held });
}
