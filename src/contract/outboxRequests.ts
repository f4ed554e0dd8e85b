// What the outbox's operator routes are asked (docs/outbox.md): the filter and paging of
// the dead letters, and which publisher a replay is for.
import type { FromSchema } from 'json-schema-to-ts';

/** The query of `GET /v1/outbox/dead-letters`. */
export const deadLettersQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    publisher: { type: 'string', maxLength: 64 },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    cursor: { type: 'string', maxLength: 500 },
  },
} as const;

/** `{id}` in the path of `POST /v1/outbox/dead-letters/{id}/replay`. */
export const deadLetterParamsSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', description: 'Event id' } },
  additionalProperties: false,
} as const;

/** The body of `POST /v1/outbox/dead-letters/{id}/replay` (none: every publisher it is dead for). */
export const replayBodySchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { publisher: { type: 'string', maxLength: 64 } },
} as const;

/** The filter and paging of the dead letters, as a caller sends it. */
export type DeadLettersQuery = FromSchema<
  typeof deadLettersQuerySchema,
  { keepDefaultedPropertiesOptional: true }
>;
/** What a replay of a dead letter is sent. */
export type ReplayBody = FromSchema<typeof replayBodySchema>;
