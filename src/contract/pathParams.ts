// The path parameter most routes share: the id of the job, transfer or event they act on.
import type { FromSchema } from 'json-schema-to-ts';

/** `{id}` in a route's path. */
export const idParamsSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;

/** The id a route acts on. */
export type IdParams = FromSchema<typeof idParamsSchema>;
