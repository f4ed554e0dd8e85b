import type { FastifyInstance } from 'fastify';
import type { Onejob } from '../../createOnejob.js';
import { getJob } from '../../jobs/getJob.js';
import { ownerOf } from '../requestContext.js';
import { problemResponse } from '../schemas.js';

// The audit trail of one job, oldest first: everything that happened, races and abandons included.
const EVENTS_SQL = `
SELECT id, seq::text AS seq, type, attempt_id AS "attemptId", data,
       to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
FROM onejob.job_events WHERE job_id = $1 ORDER BY seq`;

// The job's public events and how far each got with each publisher. Events written before
// any relay registered a publisher have no delivery rows yet: they show as waiting.
const DELIVERIES_SQL = `
SELECT o.id, o.seq::text AS seq, o.type,
       to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
       coalesce(jsonb_agg(jsonb_build_object(
         'publisher', d.publisher, 'state', d.state, 'attempts', d.attempts, 'replays', d.replays,
         'lastError', d.last_error,
         'publishedAt', to_char(d.published_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'deadAt', to_char(d.dead_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         ORDER BY d.publisher) FILTER (WHERE d.publisher IS NOT NULL), '[]'::jsonb) AS deliveries
FROM onejob.outbox o
LEFT JOIN onejob.outbox_deliveries d ON d.event_id = o.id
WHERE o.subject = $1
GROUP BY o.id, o.seq, o.type, o.created_at
ORDER BY o.seq`;

const jobParams = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;

/** Read-only views of one job's history, for the dashboard and for operators. */
export async function jobEventsRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
  app.get<{ Params: { id: string } }>(
    '/v1/jobs/:id/events',
    {
      schema: {
        summary: "A job's audit trail, oldest first (created, attempts, unknown outcomes, lost races, abandons)",
        tags: ['jobs'],
        params: jobParams,
        response: {
          200: {
            description: 'The events',
            type: 'object',
            required: ['items'],
            properties: {
              items: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    seq: { type: 'string' },
                    type: { type: 'string' },
                    attemptId: { type: ['string', 'null'] },
                    data: {},
                    createdAt: { type: 'string', format: 'date-time' },
                  },
                },
              },
            },
          },
          404: problemResponse('No such job for this owner'),
        },
      },
    },
    async (request) => {
      // Owner check first: another owner's job answers 404, exactly like GET /v1/jobs/{id}.
      const job = await getJob(onejob.pool, ownerOf(request), request.params.id);
      const { rows } = await onejob.pool.query(EVENTS_SQL, [job.id]);
      return { items: rows };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/jobs/:id/deliveries',
    {
      schema: {
        summary: "The job's outbox events and their delivery state per publisher",
        tags: ['jobs'],
        params: jobParams,
        response: {
          200: {
            description: 'The outbox events of the job, oldest first',
            type: 'object',
            required: ['items'],
            properties: { items: { type: 'array', items: { type: 'object', additionalProperties: true } } },
          },
          404: problemResponse('No such job for this owner'),
        },
      },
    },
    async (request) => {
      const job = await getJob(onejob.pool, ownerOf(request), request.params.id);
      const { rows } = await onejob.pool.query(DELIVERIES_SQL, [job.id]);
      return { items: rows };
    },
  );
}
