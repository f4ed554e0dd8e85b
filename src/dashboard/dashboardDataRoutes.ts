import type { FastifyInstance } from 'fastify';
import type { Onejob } from '../createOnejob.js';
import { ownerOf } from '../http/requestContext.js';

const ISO = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// Owner-scoped: only deliveries of events about this owner's jobs.
const OWNER_SUBJECTS = 'SELECT id::text FROM onejob.jobs WHERE owner_id = $1';

const BACKLOG_SQL = `
SELECT d.publisher, d.state, count(*)::int AS count, ${ISO('min(d.created_at)')} AS "oldestAt"
FROM onejob.outbox_deliveries d
WHERE d.subject IN (${OWNER_SUBJECTS})
GROUP BY d.publisher, d.state ORDER BY d.publisher, d.state`;

const DEAD_SQL = `
SELECT d.event_id AS "eventId", d.publisher, d.subject AS "jobId", o.type, d.attempts, d.replays,
       d.last_error AS "lastError", ${ISO('d.dead_at')} AS "deadAt"
FROM onejob.outbox_deliveries d JOIN onejob.outbox o ON o.id = d.event_id
WHERE d.state = 'dead' AND d.subject IN (${OWNER_SUBJECTS})
ORDER BY d.dead_at DESC LIMIT $2`;

const INBOX_SQL = `
SELECT source, event_id AS "eventId", job_id AS "jobId", deliveries, deliveries - 1 AS redeliveries,
       differing_payloads AS "differingPayloads", response_status AS "responseStatus",
       ${ISO('first_received_at')} AS "firstReceivedAt", ${ISO('last_received_at')} AS "lastReceivedAt"
FROM onejob.inbox_events
WHERE owner_id = $1 AND ($2::text IS NULL OR source = $2)
ORDER BY first_received_at DESC LIMIT $3`;

const limitQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
    source: { type: 'string', maxLength: 200 },
  },
} as const;

/**
 * Summaries the dashboard shows beside the jobs: the outbox backlog and dead letters of
 * the owner's jobs, and the owner's inbox events with their redelivery counts.
 */
export async function dashboardDataRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
  app.get<{ Querystring: { limit: number } }>(
    '/v1/dashboard/outbox',
    {
      schema: {
        summary: "Outbox backlog per publisher and the latest dead letters, for the owner's jobs",
        tags: ['dashboard'],
        querystring: limitQuery,
      },
    },
    async (request) => {
      const owner = ownerOf(request);
      const [backlog, dead] = await Promise.all([
        onejob.pool.query(BACKLOG_SQL, [owner]),
        onejob.pool.query(DEAD_SQL, [owner, request.query.limit]),
      ]);
      return { backlog: backlog.rows, deadLetters: dead.rows };
    },
  );

  app.get<{ Querystring: { limit: number; source?: string } }>(
    '/v1/dashboard/inbox',
    {
      schema: {
        summary: "The owner's inbox events, newest first, with how often each was delivered",
        tags: ['dashboard'],
        querystring: limitQuery,
      },
    },
    async (request) => {
      const { rows } = await onejob.pool.query(INBOX_SQL, [
        ownerOf(request),
        request.query.source ?? null,
        request.query.limit,
      ]);
      return { items: rows };
    },
  );
}
