import type { FastifyInstance } from 'fastify';
import type { Onejob } from '../../createOnejob.js';
import { problemResponse } from '../schemas.js';

// Operator endpoints: `config: { admin: true }` makes the auth hook demand ONEJOB_ADMIN_TOKEN.

const backlogItem = {
  type: 'object',
  required: ['publisher', 'kind', 'pending', 'dead', 'oldestAgeSeconds'],
  properties: {
    publisher: { type: 'string' },
    kind: { type: 'string' },
    pending: { type: 'integer' },
    dead: { type: 'integer' },
    oldestAgeSeconds: { type: 'number' },
  },
};

const deadLetter = {
  type: 'object',
  required: [
    'eventId',
    'publisher',
    'type',
    'subject',
    'attempts',
    'lastError',
    'replays',
    'createdAt',
    'deadAt',
    'event',
  ],
  properties: {
    eventId: { type: 'string', format: 'uuid' },
    publisher: { type: 'string' },
    type: { type: 'string' },
    subject: { type: 'string' },
    attempts: { type: 'integer' },
    lastError: { type: ['string', 'null'] },
    replays: { type: 'integer' },
    createdAt: { type: 'string', format: 'date-time' },
    deadAt: { type: 'string', format: 'date-time' },
    event: { type: 'object', additionalProperties: true, description: 'The CloudEvent as published' },
  },
};

const forbidden = problemResponse('No admin token, or not the admin token (admin_token_required)');

export async function outboxRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
  app.get(
    '/v1/outbox/backlog',
    {
      config: { admin: true },
      schema: {
        summary: 'Pending and dead outbox deliveries per publisher',
        tags: ['outbox'],
        response: {
          200: {
            description: 'One entry per registered publisher',
            type: 'object',
            required: ['publishers'],
            properties: { publishers: { type: 'array', items: backlogItem } },
          },
          403: forbidden,
        },
      },
    },
    async () => ({ publishers: await onejob.outbox.backlog() }),
  );

  app.get<{ Querystring: { publisher?: string; limit?: number; cursor?: string } }>(
    '/v1/outbox/dead-letters',
    {
      config: { admin: true },
      schema: {
        summary: 'Events a publisher gave up on after maxDeliveries refused tries, newest first',
        tags: ['outbox'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            publisher: { type: 'string', maxLength: 64 },
            limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
            cursor: { type: 'string', maxLength: 500 },
          },
        },
        response: {
          200: {
            description: 'One page of dead letters',
            type: 'object',
            required: ['items', 'nextCursor'],
            properties: {
              items: { type: 'array', items: deadLetter },
              nextCursor: { type: ['string', 'null'] },
            },
          },
          403: forbidden,
        },
      },
    },
    async (request) => onejob.outbox.deadLetters.list(request.query),
  );

  app.post<{ Params: { id: string }; Body: { publisher?: string } | undefined }>(
    '/v1/outbox/dead-letters/:id/replay',
    {
      config: { admin: true },
      schema: {
        summary: 'Send a dead letter back to the relay, with the same event id',
        description:
          'Without `publisher`, the event is replayed to every publisher it is dead for. Consumers recognise the id if an earlier copy did arrive.',
        tags: ['outbox'],
        params: {
          type: 'object',
          required: ['id'],
          properties: { id: { type: 'string', description: 'Event id' } },
        },
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { publisher: { type: 'string', maxLength: 64 } },
        },
        response: {
          200: {
            description: 'The deliveries now pending again',
            type: 'object',
            required: ['replayed'],
            properties: {
              replayed: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['eventId', 'publisher'],
                  properties: { eventId: { type: 'string' }, publisher: { type: 'string' } },
                },
              },
            },
          },
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
