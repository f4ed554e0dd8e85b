import type { FastifyInstance } from 'fastify';
import {
  backlogSchema,
  deadLetterPageSchema,
  deadLetterParamsSchema,
  deadLettersQuerySchema,
  replayBodySchema,
  replayedSchema,
} from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { answer, problemResponse, typed } from '../schemas.js';

// Operator endpoints: `config: { admin: true }` makes the auth hook demand ONEJOB_ADMIN_TOKEN.

const forbidden = problemResponse('No admin token, or not the admin token (admin_token_required)');

export async function outboxRoutes(server: FastifyInstance, { onejob }: { onejob: Onejob }) {
  const app = typed(server);
  app.get(
    '/v1/outbox/backlog',
    {
      config: { admin: true },
      schema: {
        summary: 'Pending and dead outbox deliveries per publisher',
        tags: ['outbox'],
        response: {
          200: answer('One entry per registered publisher', backlogSchema),
          403: forbidden,
        },
      },
    },
    async () => ({ publishers: await onejob.outbox.backlog() }),
  );

  app.get(
    '/v1/outbox/dead-letters',
    {
      config: { admin: true },
      schema: {
        summary: 'Events a publisher gave up on after maxDeliveries refused tries, newest first',
        tags: ['outbox'],
        querystring: deadLettersQuerySchema,
        response: {
          200: answer('One page of dead letters', deadLetterPageSchema),
          403: forbidden,
        },
      },
    },
    async (request) => onejob.outbox.deadLetters.list(request.query),
  );

  app.post(
    '/v1/outbox/dead-letters/:id/replay',
    {
      config: { admin: true },
      schema: {
        summary: 'Send a dead letter back to the relay, with the same event id',
        description:
          'Without `publisher`, the event is replayed to every publisher it is dead for. Consumers recognise the id if an earlier copy did arrive.',
        tags: ['outbox'],
        params: deadLetterParamsSchema,
        body: replayBodySchema,
        response: {
          200: answer('The deliveries now pending again', replayedSchema),
          403: forbidden,
          404: problemResponse('The event is not a dead letter (dead_letter_not_found)'),
        },
      },
    },
    async (request) => ({
      replayed: await onejob.outbox.deadLetters.replay(request.params.id, request.body?.publisher),
    }),
  );
}
