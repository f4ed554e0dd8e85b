import type { DeadLetter, DeadLetterPage, DeadLettersQuery } from '../contract/index.js';
import type { Queryable } from '../db/createPool.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { CloudEvent } from '../events/cloudEvent.js';
import { cloudEventOfRow } from '../events/cloudEventOfRow.js';
import { UUID } from './uuidPattern.js';

/** An event a publisher gave up on after `maxDeliveries`, and a page of them: the wire contract's shapes. */
export type { DeadLetter, DeadLetterPage };

interface DeadRow {
  event_id: string;
  publisher: string;
  type: string;
  subject: string;
  attempts: number;
  last_error: string | null;
  replays: number;
  created_at: Date;
  dead_at: Date;
  dead_us: string;
  event: CloudEvent;
}

// Newest first; the cursor is the (dead_at in microseconds, event id, publisher) of the
// last row, so pages stay stable while new dead letters arrive.
const LIST_SQL = `
SELECT d.event_id, d.publisher, e.publish AS type, d.subject, d.attempts, d.last_error, d.replays, d.created_at, d.dead_at,
       (extract(epoch FROM d.dead_at) * 1000000)::bigint::text AS dead_us,
       ${cloudEventOfRow('e')} AS event
FROM onejob.outbox_retries d JOIN onejob.job_events e ON e.id = d.event_id AND e.owner_id = d.owner_id
WHERE d.state = 'dead'
  AND ($1::text IS NULL OR d.publisher = $1)
  AND ($2::bigint IS NULL OR (d.dead_at, d.event_id, d.publisher) < (to_timestamp($2::bigint / 1000000.0), $3::uuid, $4::text))
  AND ($6::text IS NULL OR d.subject IN (SELECT id::text FROM onejob.jobs WHERE owner_id = $6))
ORDER BY d.dead_at DESC, d.event_id DESC, d.publisher DESC
LIMIT $5`;

function encodeCursor(row: DeadRow): string {
  return Buffer.from(JSON.stringify([row.dead_us, row.event_id, row.publisher])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 3 &&
      /^\d+$/.test(String(value[0])) &&
      UUID.test(String(value[1]))
    ) {
      return [String(value[0]), String(value[1]), String(value[2])];
    }
  } catch {
    // fall through
  }
  throw new OnejobError('request_invalid', 'cursor is not a cursor returned by this endpoint', {
    param: 'cursor',
  });
}

/** Filters and paging of `listDeadLetters`. */
/** The query of `GET /v1/outbox/dead-letters` (src/contract), and for the dashboard an owner. */
export type DeadLetterQuery = DeadLettersQuery & {
  /** Only dead letters of events about this owner's jobs. */
  ownerId?: string | undefined;
};

/**
 * Dead letters, newest first, one page at a time.
 *
 * @example
 * ```ts
 * const page = await listDeadLetters(pool, { publisher: 'billing', limit: 50 });
 * for (const letter of page.items) await replayDeadLetter(pool, letter.eventId, letter.publisher);
 * ```
 */
export async function listDeadLetters(db: Queryable, query: DeadLetterQuery = {}): Promise<DeadLetterPage> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
  const [us, eventId, publisher] = query.cursor ? decodeCursor(query.cursor) : [null, null, null];
  const { rows } = await db.query<DeadRow>(LIST_SQL, [
    query.publisher ?? null,
    us,
    eventId,
    publisher,
    limit + 1,
    query.ownerId ?? null,
  ]);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => ({
      eventId: r.event_id,
      publisher: r.publisher,
      type: r.type,
      subject: r.subject,
      attempts: r.attempts,
      lastError: r.last_error,
      replays: r.replays,
      createdAt: r.created_at.toISOString(),
      deadAt: r.dead_at.toISOString(),
      event: r.event,
    })),
    nextCursor: rows.length > limit && last ? encodeCursor(last) : null,
  };
}

// Back to pending with a fresh count; the event keeps its id, so a consumer that did
// receive an earlier copy recognises it. Only dead rows change.
const REPLAY_SQL = `
WITH replayed AS (
  UPDATE onejob.outbox_retries
  SET state = 'pending', attempts = 0, next_attempt_at = now(), dead_at = NULL, replays = replays + 1
  WHERE event_id = $1 AND state = 'dead' AND ($2::text IS NULL OR publisher = $2)
  RETURNING event_id, publisher
)
SELECT r.event_id, r.publisher, pg_notify('onejob_outbox', '') IS NULL AS notified FROM replayed r`;

/**
 * Sends a dead letter back to the relay, for one publisher or for every publisher it
 * is dead for. Throws `dead_letter_not_found` when nothing was dead.
 *
 * @example
 * ```ts
 * await replayDeadLetter(pool, '0193a1b2-…', 'billing'); // the event goes back to the billing publisher
 * ```
 */
export async function replayDeadLetter(
  db: Queryable,
  eventId: string,
  publisher?: string,
): Promise<{ eventId: string; publisher: string }[]> {
  if (!UUID.test(eventId)) throw new OnejobError('dead_letter_not_found', `"${eventId}" is not an event id.`);
  const { rows } = await db.query<{ event_id: string; publisher: string }>(REPLAY_SQL, [
    eventId,
    publisher ?? null,
  ]);
  if (rows.length === 0) {
    throw new OnejobError(
      'dead_letter_not_found',
      `Event ${eventId} is not a dead letter${publisher ? ` for publisher ${publisher}` : ''}.`,
    );
  }
  return rows.map((r) => ({ eventId: r.event_id, publisher: r.publisher }));
}
