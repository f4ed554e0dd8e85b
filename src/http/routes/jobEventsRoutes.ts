import type { FastifyInstance } from 'fastify';
import { jobDeliveryListSchema, jobEventListSchema } from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { ownerOf } from '../requestContext.js';
import { answer, problemResponse } from '../schemas.js';

const jobParams = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;

/** Read-only views of one job's history, for the dashboard and for operators. */
export async function jobEventsRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
  app.get<{ Params: { id: string } }>(
    '/v1/jobs/:id/events',
    {
      schema: {
        summary:
          "A job's audit trail, oldest first (created, attempts, unknown outcomes, lost races, abandons)",
        tags: ['jobs'],
        params: jobParams,
        response: {
          200: answer('The events', jobEventListSchema),
          404: problemResponse('No such job for this owner'),
        },
      },
    },
    // Another owner's job answers 404, exactly like GET /v1/jobs/{id}.
    async (request) => ({ items: await onejob.jobs.events(ownerOf(request), request.params.id) }),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/jobs/:id/deliveries',
    {
      schema: {
        summary: "The job's outbox events and their delivery state per publisher",
        tags: ['jobs'],
        params: jobParams,
        response: {
          200: answer('The outbox events of the job, oldest first', jobDeliveryListSchema),
          404: problemResponse('No such job for this owner'),
        },
      },
    },
    async (request) => ({ items: await onejob.jobs.deliveries(ownerOf(request), request.params.id) }),
  );
}
