// The path parameter most routes share: the id of the job, transfer or event they act on.
// Path parameter schemas are closed: a route's path names exactly the parameters it has,
// and the types derived from them then carry no index signature.
import type { FromSchema } from 'json-schema-to-ts';

/** `{id}` in a route's path. */
export const idParamsSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
  additionalProperties: false,
} as const;

/** The id a route acts on. */
export type IdParams = FromSchema<typeof idParamsSchema>;
