import type { FastifyInstance } from 'fastify';
import {
  abandonAttemptBodySchema,
  attemptParamsSchema,
  idParamsSchema,
  startAttemptBodySchema,
} from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { ownerOf } from '../requestContext.js';
import { answerRef, problemResponse, typed } from '../schemas.js';

export async function attemptsRoutes(server: FastifyInstance, { onejob }: { onejob: Onejob }) {
  const app = typed(server);
  app.post(
    '/v1/jobs/:id/attempts',
    {
      schema: {
        summary: 'Start an attempt now (the fallback button)',
        description:
          'Refused while another attempt of an exclusive job is starting, running or unknown. The attempt is `starting` until a worker runs it.',
        tags: ['attempts'],
        params: idParamsSchema,
        body: startAttemptBodySchema,
        response: {
          202: answerRef('The attempt, starting', 'Attempt'),
          404: problemResponse('No such job for this owner'),
          409: problemResponse(
            'attempt_in_flight, attempt_outcome_unknown, job_completed or max_attempts_reached',
          ),
          422: problemResponse(
            'provider_unknown, or provider_not_verified for a fallback without a passing contract verification',
          ),
        },
      },
    },
    async (request, reply) => {
      const attempt = await onejob.attempts.start(ownerOf(request), request.params.id, {
        provider: request.body?.provider,
      });
      reply.header('Location', `/v1/jobs/${request.params.id}`);
      return reply.code(202).send(attempt);
    },
  );

  app.post(
    '/v1/jobs/:id/attempts/:n/abandon',
    {
      schema: {
        summary: 'Give up on a running or unknown attempt',
        description:
          'Bumps the job version so the attempt can never complete the job; its late result is discarded and recorded. The job then retries after a backoff, or fails if no attempts are left.',
        tags: ['attempts'],
        params: attemptParamsSchema,
        body: abandonAttemptBodySchema,
        response: {
          200: answerRef('The job after the abandon', 'Job'),
          404: problemResponse('No such job or attempt'),
          409: problemResponse('attempt_not_abandonable'),
        },
      },
    },
    async (request) =>
      onejob.attempts.abandon(ownerOf(request), request.params.id, request.params.n, request.body.reason),
  );

  app.post(
    '/v1/jobs/:id/cancel',
    {
      schema: {
        summary: 'Cancel a job that has no outcome yet',
        description:
          'Live attempts are fenced out; what an in-flight provider call already did is not undone.',
        tags: ['jobs'],
        params: idParamsSchema,
        response: {
          200: answerRef('The job, cancelled', 'Job'),
          404: problemResponse('No such job for this owner'),
          409: problemResponse('job_completed: the job already succeeded or failed'),
        },
      },
    },
    async (request) => onejob.attempts.cancel(ownerOf(request), request.params.id),
  );
}
