import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  createJobBodySchema,
  createJobHeadersSchema,
  idParamsSchema,
  jobPageSchema,
  listJobsQuerySchema,
  readJobQuerySchema,
} from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { OnejobError } from '../../errors/OnejobError.js';
import { failpoint } from '../../failpoints/failpoints.js';
import { parseIdempotencyKey } from '../../jobs/idempotencyKey.js';
import { rateLimited } from '../authenticate.js';
import type { TokenBuckets } from '../limits/TokenBuckets.js';
import type { WaitSlots } from '../limits/WaitSlots.js';
import { ownerOf, traceparentOf } from '../requestContext.js';
import { answer, answerRef, problemResponse, type TypedServer, typed } from '../schemas.js';

const jobResponse = (description: string) => answerRef(description, 'Job');

export interface JobsRoutesOptions {
  onejob: Onejob;
  /** Per-owner job-creation bucket; undefined when limits are off. */
  jobBuckets: TokenBuckets | undefined;
  waitSlots: WaitSlots;
  /** Pages of the job list each owner may have in flight at once. */
  listSlots: WaitSlots;
  maxListBytes: number;
}

/** The one Idempotency-Key, from the raw headers: Node joins repeated ones into "k1, k2". */
function idempotencyKeyOf(request: FastifyRequest): string {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === 'idempotency-key') count++;
  if (count > 1) {
    throw new OnejobError(
      'idempotency_key_invalid',
      'Send the Idempotency-Key header once, not several times.',
    );
  }
  return parseIdempotencyKey(request.headers['idempotency-key']);
}

export async function jobsRoutes(app: FastifyInstance, options: JobsRoutesOptions) {
  createJobRoute(typed(app), options);
  readJobRoute(typed(app), options);
  listJobsRoute(typed(app), options);
}

/** POST /v1/jobs: the one job of a user intent. */
function createJobRoute(app: TypedServer, { onejob, jobBuckets }: JobsRoutesOptions) {
  app.post(
    '/v1/jobs',
    {
      schema: {
        summary: 'Create the job for a user intent, or return the job its key already names',
        tags: ['jobs'],
        headers: createJobHeadersSchema,
        body: createJobBodySchema,
        response: {
          202: jobResponse('The job (new, or replayed with Idempotent-Replayed: true)'),
          400: problemResponse(
            'Missing or invalid key, malformed JSON, a body of the wrong shape, or a runAt that is not an instant',
          ),
          401: problemResponse('Missing or invalid token'),
          409: problemResponse('The key was used with a different body (idempotency_key_reused)'),
          429: problemResponse("The owner's job-creation limit is reached (rate_limited, with Retry-After)"),
          413: problemResponse('Body over 1 MiB, or holding more than 100,000 values'),
          422: problemResponse('Unknown operation, or input failing the operation input schema'),
          503: problemResponse('Database unavailable; retry with the same key'),
        },
      },
      // Before the body is even read: a keyless request is told what it lacks first, and an
      // owner past its bucket costs no parsing or checking of up to 1 MiB of JSON. A replay
      // of an existing key costs a token too: the bucket bounds the owner's creation
      // requests, which is what reaches the database.
      onRequest: async (request) => {
        idempotencyKeyOf(request);
        const retryAfter = jobBuckets?.take(ownerOf(request)) ?? 0;
        if (retryAfter > 0) throw rateLimited(retryAfter, 'job creations');
      },
    },
    async (request, reply) => {
      const idempotencyKey = idempotencyKeyOf(request);
      const { job, replayed } = await onejob.jobs.create({
        ownerId: ownerOf(request),
        idempotencyKey,
        operation: request.body.operation,
        input: request.body.input,
        runAt: request.body.runAt,
        traceparent: traceparentOf(request),
      });
      // Logged with the request's line in onResponse: one line per request, not two.
      request.logFields = { jobId: job.id, idempotencyKey, replayed, operation: job.operation };
      await failpoint('api.after_commit');
      reply.header('Location', `/v1/jobs/${job.id}`);
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(202).send(job);
    },
  );
}

/** GET /v1/jobs/{id}, optionally held until the job settles. */
function readJobRoute(app: TypedServer, { onejob, waitSlots }: JobsRoutesOptions) {
  app.get(
    '/v1/jobs/:id',
    {
      schema: {
        summary: 'Read a job; with waitMs, hold the request until it settles',
        tags: ['jobs'],
        params: idParamsSchema,
        querystring: readJobQuerySchema,
        response: { 200: jobResponse('The job'), 404: problemResponse('No such job for this owner') },
      },
    },
    async (request) => {
      const owner = ownerOf(request);
      const { id } = request.params;
      const waitMs = request.query.waitMs ?? 0;
      if (waitMs === 0) return onejob.jobs.get(owner, id);
      if (!waitSlots.tryTake(owner)) throw rateLimited(1, 'long-polls (waitMs)');
      try {
        return await onejob.jobs.wait(owner, id, waitMs);
      } finally {
        waitSlots.release(owner);
      }
    },
  );
}

/** GET /v1/jobs: the owner's jobs, a page at a time. */
function listJobsRoute(app: TypedServer, { onejob, listSlots, maxListBytes }: JobsRoutesOptions) {
  app.get(
    '/v1/jobs',
    {
      schema: {
        summary: "List the owner's jobs, newest first",
        tags: ['jobs'],
        querystring: listJobsQuerySchema,
        response: {
          200: answer('One page of jobs', jobPageSchema),
          429: problemResponse("The owner's concurrent job lists are at http.maxListsPerOwner"),
        },
      },
    },
    async (request) => {
      // Pages of big jobs cost the server CPU and memory for each megabyte: one owner's
      // many concurrent pages would hold up everyone else's requests.
      const owner = ownerOf(request);
      if (!listSlots.tryTake(owner)) throw rateLimited(1, 'concurrent job lists');
      try {
        return await onejob.jobs.list(owner, { ...request.query, maxBytes: maxListBytes });
      } finally {
        listSlots.release(owner);
      }
    },
  );
}
