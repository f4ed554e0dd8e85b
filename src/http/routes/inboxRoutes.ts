import type { FastifyInstance } from 'fastify';
import { type InboxSourceParams, inboxAnswerSchema, inboxSourceParamsSchema } from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { failpoint } from '../../failpoints/failpoints.js';
import { traceparentOf } from '../requestContext.js';
import { answer, problemResponse } from '../schemas.js';

/**
 * POST /v1/inbox/{source}: signed webhooks, authenticated by their signature rather than a
 * bearer token. Registered as its own plugin so its raw-body parser stays out of every
 * other route: signatures cover the bytes as sent, which parsed JSON cannot reproduce.
 */
export async function inboxRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
  // Built now, so a source with a missing secret stops the server from starting.
  onejob.inbox.sources();

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  // The body is the bytes as sent (the parser above), not JSON a schema could type.
  app.post<{ Params: InboxSourceParams; Body: Buffer | undefined }>(
    '/v1/inbox/:source',
    {
      // Authenticated by the sender's signature, not a bearer token.
      config: { public: true },
      schema: {
        summary: "Receive a signed webhook; the sender's event id makes every redelivery answer the same",
        tags: ['inbox'],
        security: [],
        params: inboxSourceParamsSchema,
        response: {
          202: answer(
            'The job the event created; on a redelivery the same body with Idempotent-Replayed: true',
            inboxAnswerSchema,
          ),
          400: problemResponse(
            'No event id (event_id_missing), a bad one, or a body that is not a JSON object',
          ),
          401: problemResponse('Missing or invalid signature, or a timestamp outside the tolerance'),
          404: problemResponse('No such source'),
          422: problemResponse("The body fails the operation's input schema"),
        },
      },
    },
    async (request, reply) => {
      // Unknown source (404), signature, event id and input checks all happen in the library.
      const answer = await onejob.inbox.receive(request.params.source, {
        headers: request.headers,
        rawBody: request.body ?? Buffer.alloc(0),
        traceparent: traceparentOf(request),
      });
      request.log.info(
        {
          source: request.params.source,
          eventId: answer.eventId,
          jobId: answer.body.jobId,
          replayed: answer.replayed,
          deliveries: answer.deliveries,
        },
        answer.replayed ? 'webhook redelivered' : 'webhook accepted',
      );
      await failpoint('inbox.after_commit');
      if (answer.replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(answer.status).send(answer.body);
    },
  );
}
