// JSON Schemas of the HTTP API. They validate requests and generate /openapi.json.
import { ATTEMPT_STATES } from '../vocabulary/attemptStates.js';
import { JOB_STATES } from '../vocabulary/jobStates.js';

export const problemSchema = {
  $id: 'Problem',
  type: 'object',
  description: 'RFC 9457 problem details with a stable `code`.',
  required: ['type', 'title', 'status', 'code', 'detail'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string' },
    detail: { type: 'string' },
  },
  additionalProperties: true,
} as const;

export const attemptSchema = {
  $id: 'Attempt',
  type: 'object',
  required: ['id', 'n', 'provider', 'state', 'startedAt', 'finishedAt', 'error'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    n: { type: 'integer' },
    provider: { type: 'string' },
    state: { enum: ATTEMPT_STATES },
    origin: { type: 'string' },
    startedAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: ['string', 'null'], format: 'date-time' },
    error: {},
    usage: {},
    costMicros: { type: ['integer', 'null'] },
  },
} as const;

export const jobSchema = {
  $id: 'Job',
  type: 'object',
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
    completedBy: { type: ['string', 'null'], format: 'uuid' },
    attempts: { type: 'array', items: { $ref: 'Attempt#' } },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    archivedAt: { type: 'string', format: 'date-time' },
  },
} as const;

export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
});
