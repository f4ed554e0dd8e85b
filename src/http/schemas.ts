// The HTTP API's JSON Schemas, answers and requests alike, come from the wire contract
// (src/contract); /openapi.json is generated from the routes that serve them. The named
// ones are registered once on the server and referenced as `$ref: 'Job#'`.
import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyInstance } from 'fastify';
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

/**
 * The server with each route's request types (body, query, params, headers) and answer
 * types taken from its schemas, so a route never states a type beside its schema.
 */
export const typed = (app: FastifyInstance) => app.withTypeProvider<JsonSchemaToTsProvider>();

/** A server whose routes take their types from their schemas. */
export type TypedServer = ReturnType<typeof typed>;
