// What the jobs and attempts routes are asked (contract section 4): bodies, queries and
// path parameters. The routes validate with these schemas and take their types from them
// (a Fastify type provider); the engine's request types and the SDK's derive from the same.
import type { FromSchema } from 'json-schema-to-ts';
import { JOB_STATES } from '../vocabulary/jobStates.js';
import { idParamsSchema } from './pathParams.js';

/** Query types as a caller sends them: a defaulted field may be left out. */
type Sent = { keepDefaultedPropertiesOptional: true };

export const createJobHeadersSchema = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      description: '1 to 255 printable ASCII characters, one per user intent',
    },
  },
} as const;

/** The body of `POST /v1/jobs`. */
export const createJobBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['operation', 'input'],
  properties: {
    operation: { type: 'string', minLength: 1, maxLength: 200 },
    input: { type: 'object', additionalProperties: true },
    // Checked by the engine's instant parser, as every instant: a 400 names the field.
    runAt: {
      type: ['string', 'null'],
      maxLength: 64,
      description: 'RFC 3339 instant with a time zone: not started before it (a past one runs now)',
    },
  },
} as const;

/** The query of `GET /v1/jobs/{id}`. */
export const readJobQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { waitMs: { type: 'integer', minimum: 0, maximum: 60_000 } },
} as const;

/** The query of `GET /v1/jobs`. */
export const listJobsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    state: { enum: JOB_STATES },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    cursor: { type: 'string', maxLength: 200 },
    idempotencyKey: { type: 'string', maxLength: 255 },
    operation: { type: 'string', maxLength: 200 },
    waiting: {
      type: 'boolean',
      description: 'true: only queued jobs whose runAt is still ahead (waiting for their time)',
    },
  },
} as const;

/** The body of `POST /v1/jobs/{id}/attempts` (none, or an empty object, takes the next provider). */
export const startAttemptBodySchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { provider: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

/** The path of `POST /v1/jobs/{id}/attempts/{n}/abandon`. */
export const attemptParamsSchema = {
  type: 'object',
  required: [...idParamsSchema.required, 'n'],
  properties: {
    ...idParamsSchema.properties,
    n: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
  },
  additionalProperties: false,
} as const;

/** The body of `POST /v1/jobs/{id}/attempts/{n}/abandon`. */
export const abandonAttemptBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: { reason: { type: 'string', minLength: 1, maxLength: 1000 } },
} as const;

/** What `POST /v1/jobs` is sent: the operation, its input and when to start it. */
export type CreateJobBody = FromSchema<typeof createJobBodySchema>;

/**
 * Filters and paging of the job list. `cursor` also takes a page's `nextCursor` as it
 * is, null for the first page (a null is not sent).
 */
export type ListJobsQuery = Omit<FromSchema<typeof listJobsQuerySchema, Sent>, 'cursor'> & {
  cursor?: string | null;
};

/** What `POST /v1/jobs/{id}/attempts` is sent: the provider, or none for the next one. */
export type StartAttemptBody = FromSchema<typeof startAttemptBodySchema>;
/** What `POST /v1/jobs/{id}/attempts/{n}/abandon` is sent. */
export type AbandonAttemptBody = FromSchema<typeof abandonAttemptBodySchema>;
