// A publisher's position over the event log, in commit order (docs/outbox.md, "How it
// works"). The position is `done`, a snapshot: every event whose writing transaction is
// visible in it is behind the publisher. The events ahead are those visible in a later
// snapshot and not in `done`: exactly the transactions that committed in between, whatever
// their xids or seqs, so an event committed late by a long transaction is never passed.
// More than a batch ahead opens a window: the events visible in `window_end` and not in
// `done` are a fixed set (all committed), walked in seq order with `window_seq` the last
// seq behind and `window_last` the highest seq in the set; when it is walked, `done`
// becomes `window_end`.
import type pg from 'pg';
import { cloudEventOfRow } from '../events/cloudEventOfRow.js';
import { type ClaimedDelivery, claimedDelivery } from './claimOutboxBatch.js';

/** A publisher's position, as locked for one pass. */
export interface Position {
  done: string;
  /** The snapshot the pass reads up to: the open window's end, or the snapshot taken now. */
  upto: string;
  windowOpen: boolean;
  windowSeq: string;
  /**
   * The lowest and highest seq of the events ahead, up to `upto`: read by a pass that walks
   * them from the xid index (no window yet, or one opened before its bound was kept), and
   * the bounds of the window it opens. Null when nothing is ahead or the window is walked by seq.
   */
  span: { first: string; last: string } | null;
  /** The open window's highest seq, once recorded. */
  windowLast: string | null;
  /**
   * A pass inside a window with its bound: the seq this pass read the window through. Every
   * event of the window up to it is in this batch (the batch ends there, or at its last event
   * when it is full).
   */
  through: string | null;
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
SELECT done::text, window_end::text, window_seq::text, window_last::text
FROM onejob.outbox_publishers WHERE name = $1
FOR UPDATE SKIP LOCKED`;

// Without an open window, the pass reads up to a snapshot taken now, after the lock: every
// transaction visible in it committed before, so every statement after it sees all of
// their rows, and it is never older than the `done` the previous pass committed. (Taken
// in the locking statement it could be: a statement's snapshot precedes the lock it
// waits for.)
const SNAPSHOT_SQL = `SELECT pg_current_snapshot()::text AS upto`;

// The CloudEvent (onejob.cloud_event) and the held test are computed for the batch alone,
// outside the query that picks it.
const batchOf = (picked: string, extra = '') => `
SELECT e.id, e.seq::text AS seq, coalesce(e.subject, e.job_id::text) AS subject, e.publish AS type,
       ${cloudEventOfRow('e')}::text AS json, e.owner_id${extra},
       EXISTS (SELECT 1 FROM onejob.outbox_retries d
               WHERE d.publisher = $1 AND d.subject = coalesce(e.subject, e.job_id::text) AND d.state = 'pending') AS held
FROM (${picked}) e
ORDER BY e.seq`;

// An event with a retry row for this publisher already (one put there by hand) is the
// retry pass's, and passed over: a scalar subquery, one probe of its key per event, where
// NOT EXISTS was planned as an anti-join reading every retry row (claimOutboxBatch.ts says why).
const NO_RETRY_ROW = `(SELECT r.state FROM onejob.outbox_retries r
       WHERE r.event_id = e.id AND r.publisher = $1 AND r.owner_id = e.owner_id) IS NULL`;

// The public events ahead of the position, up to `upto`, in seq order, with the lowest and
// highest seq among them (a window's bounds): within a window every event is committed
// and its seq order is the order its subject's rows were written (a job's events are
// written under its row lock). An event not visible in `done` was written by a transaction
// still running when `done` was taken (its xip list) or by one that started after (from
// its xmax): two index probes, never the range from done's xmin, which a long transaction
// anywhere in the cluster holds back. Nothing at or above upto's xmax is visible in upto.
// It reads every event ahead to sort them: once per window.
const AHEAD_SQL = batchOf(
  `
  SELECT e.*, min(e.seq) OVER () AS first_seq, max(e.seq) OVER () AS last_seq FROM (
    SELECT * FROM onejob.job_events
    WHERE publish IS NOT NULL AND xid >= pg_snapshot_xmax($2::pg_snapshot) AND xid < pg_snapshot_xmax($3::pg_snapshot)
    UNION ALL
    SELECT * FROM onejob.job_events
    WHERE publish IS NOT NULL AND xid = ANY (ARRAY(SELECT pg_snapshot_xip($2::pg_snapshot)))
  ) e
  WHERE pg_visible_in_snapshot(e.xid, $3::pg_snapshot)
    AND e.seq > $4::bigint
    AND ${NO_RETRY_ROW}
  ORDER BY e.seq
  LIMIT $5`,
  ', e.first_seq::text, e.last_seq::text',
);

// The next events of an open window: the seqs after `window_seq` and up to $6, a span of
// WINDOW_SPAN batches at most and never past `window_last`, found on
// job_events_public_by_seq and each checked against the two snapshots. A pass reads a
// bounded span of the log, never the rest of the window again; a span with fewer events
// than a batch (others' between them) moves the position to its end all the same.
const IN_WINDOW_SQL = batchOf(`
  SELECT * FROM onejob.job_events e
  WHERE e.publish IS NOT NULL AND e.seq > $4::bigint AND e.seq <= $6::bigint
    AND pg_visible_in_snapshot(e.xid, $3::pg_snapshot) AND NOT pg_visible_in_snapshot(e.xid, $2::pg_snapshot)
    AND ${NO_RETRY_ROW}
  ORDER BY e.seq
  LIMIT $5`);

interface EventRow {
  id: string;
  seq: string;
  subject: string;
  type: string;
  json: string;
  owner_id: string;
  held: boolean;
  first_seq?: string;
  last_seq?: string;
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
  const { rows: locked } = await tx.query<{
    done: string;
    window_end: string | null;
    window_seq: string;
    window_last: string | null;
  }>(LOCK_SQL, [publisher]);
  const row = locked[0];
  if (!row) return null;
  const upto = row.window_end ?? (await tx.query<{ upto: string }>(SNAPSHOT_SQL)).rows[0]?.upto ?? row.done;
  const byWindow = row.window_end !== null && row.window_last !== null;
  const values = [publisher, row.done, upto, row.window_seq, limit];
  const spanEnd = byWindow ? windowSpanEnd(row.window_seq, row.window_last as string, limit) : null;
  const { rows } = spanEnd
    ? await tx.query<EventRow>(IN_WINDOW_SQL, [...values, spanEnd])
    : await tx.query<EventRow>(AHEAD_SQL, values);
  const first = rows[0];
  const position: Position = {
    done: row.done,
    upto,
    windowOpen: row.window_end !== null,
    windowSeq: row.window_seq,
    span:
      !byWindow && first?.first_seq && first.last_seq
        ? { first: first.first_seq, last: first.last_seq }
        : null,
    windowLast: row.window_last,
    through: spanEnd === null ? null : rows.length === limit ? (rows.at(-1) as EventRow).seq : spanEnd,
  };
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
    window_last = CASE WHEN NOT $5 THEN window_last WHEN $2 THEN NULL ELSE coalesce(window_last, $7::bigint) END,
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
    // The bound of a window this pass opens (or of one opened before bounds were kept).
    position.span?.last ?? null,
  ]);
}

/** How many batches' worth of seqs a pass inside a window reads at most. */
export const WINDOW_SPAN = 8;

/** The last seq a pass inside a window reads: WINDOW_SPAN batches on, never past the window. */
function windowSpanEnd(windowSeq: string, windowLast: string, limit: number): string {
  const end = BigInt(windowSeq) + BigInt(WINDOW_SPAN * limit);
  const last = BigInt(windowLast);
  return (end < last ? end : last).toString();
}

function logEvent(row: EventRow): LogEvent {
  // Object.assign keeps the delivery's lazy `event` getter; a spread would parse it now.
  return Object.assign(claimedDelivery({ ...row, attempts: 0 }), { ownerId: row.owner_id, held: row.held });
}
