// The response side of the HTTP API's JSON Schemas comes from the wire contract
// (src/contract); /openapi.json is generated from the routes that serve them. The named
// ones are registered once on the server and referenced as `$ref: 'Job#'`.
import { attemptSchema, jobSchema, problemSchema } from '../contract/index.js';

export { attemptSchema, jobSchema, problemSchema };

/** A response of `schema`, documented with `description`. */
export const answer = <S extends object>(description: string, schema: S) => ({ ...schema, description });

/** A response of a schema registered by `$id` (Job, Attempt). */
export const answerRef = (description: string, id: 'Job' | 'Attempt') => ({ description, $ref: `${id}#` });

export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
});
