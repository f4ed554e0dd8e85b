// Jobs and attempts on the wire (contract section 4). The server's views, the SDK and the
// CLI all take their types from these schemas; the routes serve them as response schemas.
import type { FromSchema } from 'json-schema-to-ts';
import { ATTEMPT_STATES } from '../vocabulary/attemptStates.js';
import { JOB_STATES } from '../vocabulary/jobStates.js';
import { itemsOf, timestamp } from './wireParts.js';

export type { AttemptState } from '../vocabulary/attemptStates.js';
export type { JobState } from '../vocabulary/jobStates.js';

export const attemptSchema = {
  $id: 'Attempt',
  type: 'object',
  description: 'One attempt of a job.',
  required: ['id', 'n', 'provider', 'state', 'startedAt', 'finishedAt', 'error'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    n: { type: 'integer', description: '1 for the first attempt of the job, then 2, 3...' },
    provider: { type: 'string' },
    state: { enum: ATTEMPT_STATES },
    origin: {
      type: 'string',
      description: 'Why the attempt exists: worker, retry, hedge, manual (the fallback button), reconcile',
    },
    startedAt: timestamp,
    finishedAt: { type: ['string', 'null'], format: 'date-time' },
    error: {},
    usage: {},
    costMicros: { type: ['integer', 'null'] },
  },
  additionalProperties: false,
} as const;

export const jobSchema = {
  $id: 'Job',
  type: 'object',
  description: 'A job: one per user intent.',
  required: [
    'id',
    'operation',
    'state',
    'version',
    'idempotencyKey',
    'input',
    'result',
    'error',
    'completedBy',
    'attempts',
    'runAt',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    id: { type: 'string', format: 'uuid' },
    operation: { type: 'string' },
    state: { enum: JOB_STATES },
    version: { type: 'integer' },
    idempotencyKey: { type: 'string' },
    input: { type: 'object', additionalProperties: true },
    result: {},
    error: {},
    completedBy: { type: ['string', 'null'], format: 'uuid', description: 'The attempt that completed it' },
    attempts: { type: 'array', items: { $ref: 'Attempt#' } },
    runAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description:
        'Not started before this instant, as asked on creation (null: as soon as a worker is free)',
    },
    createdAt: timestamp,
    updatedAt: timestamp,
    archivedAt: { ...timestamp, description: 'Present on a job read back from the archive' },
  },
  additionalProperties: false,
} as const;

export const jobPageSchema = {
  type: 'object',
  description: 'One page of jobs; pass `nextCursor` back as `cursor` for the next one.',
  required: ['items', 'nextCursor'],
  properties: {
    items: { type: 'array', items: { $ref: 'Job#' } },
    nextCursor: { type: ['string', 'null'] },
  },
  additionalProperties: false,
} as const;

export const jobEventSchema = {
  type: 'object',
  description: "One entry of a job's audit trail.",
  required: ['id', 'seq', 'type', 'attemptId', 'data', 'createdAt'],
  properties: {
    id: { type: 'string' },
    seq: { type: 'string', description: "1-based position in the job's trail" },
    type: { type: 'string' },
    attemptId: { type: ['string', 'null'] },
    data: { type: 'object', additionalProperties: true },
    createdAt: timestamp,
  },
  additionalProperties: false,
} as const;

export const jobEventListSchema = itemsOf(jobEventSchema);

export const jobDeliverySchema = {
  type: 'object',
  description: 'One public event of a job and its delivery state per publisher.',
  required: ['id', 'seq', 'type', 'createdAt', 'deliveries'],
  properties: {
    id: { type: 'string' },
    seq: { type: 'string', description: "1-based position among the job's public events" },
    type: { type: 'string' },
    createdAt: timestamp,
    deliveries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['publisher', 'state', 'attempts', 'replays', 'lastError', 'publishedAt', 'deadAt'],
        properties: {
          publisher: { type: 'string' },
          state: { enum: ['pending', 'published', 'dead'] },
          attempts: { type: 'integer' },
          replays: { type: 'integer' },
          lastError: { type: ['string', 'null'] },
          publishedAt: { type: ['string', 'null'], format: 'date-time' },
          deadAt: { type: ['string', 'null'], format: 'date-time' },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;

export const jobDeliveryListSchema = itemsOf(jobDeliverySchema);

/** One attempt of a job, as the HTTP API returns it. */
export type Attempt = FromSchema<typeof attemptSchema>;

type JobOnWire = FromSchema<typeof jobSchema, { references: [typeof attemptSchema] }>;

/** A job, as the HTTP API returns it; `I` and `R` type its input and result. */
export type Job<I = Record<string, unknown>, R = unknown> = Omit<JobOnWire, 'input' | 'result'> & {
  input: I;
  result: R | null;
};

/** A page of the job list; pass `nextCursor` back as `cursor` for the next one. */
export type JobPage = FromSchema<
  typeof jobPageSchema,
  { references: [typeof jobSchema, typeof attemptSchema] }
>;

/** One entry of a job's audit trail. */
export type JobEvent = FromSchema<typeof jobEventSchema>;
/** One public event of a job and its delivery state per publisher. */
export type JobDelivery = FromSchema<typeof jobDeliverySchema>;
