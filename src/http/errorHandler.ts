import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, isDataException } from '../db/sqlstate.js';
import { OnejobError } from '../errors/OnejobError.js';
import { sendProblem } from './sendProblem.js';
import { validationProblem } from './validationProblem.js';

// Fastify's own error codes, mapped to ours so clients branch on one vocabulary.
const FASTIFY_CODES: Record<string, (request: FastifyRequest) => OnejobError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => new OnejobError('invalid_json', 'The request body is not valid JSON.'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new OnejobError('invalid_json', 'The request body is empty.'),
  // The route's own limit: the SDK drop-in routes take larger bodies than the rest.
  FST_ERR_CTP_BODY_TOO_LARGE: (request) =>
    new OnejobError(
      'payload_too_large',
      `The request body is larger than ${mebibytes(request.routeOptions.bodyLimit)}.`,
    ),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new OnejobError('unsupported_media_type', 'Send the body as application/json.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new OnejobError('request_invalid', 'Content-Length does not match the body.'),
};

const mebibytes = (bytes = 1024 * 1024) => `${+(bytes / (1024 * 1024)).toFixed(2)} MiB`;

/**
 * Turns anything thrown by a route into a problem document. Unexpected errors are logged
 * with their stack and answered with a bare 500: no stack, SQL or message leaks out.
 */
export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof OnejobError) return sendProblem(reply, error);
  const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (mapped) return sendProblem(reply, mapped(request));
  if (error.validation)
    return sendProblem(reply, validationProblem(error.validation, error.validationContext));
  if (error instanceof SyntaxError && error.message.includes('JSON')) {
    return sendProblem(reply, new OnejobError('invalid_json', 'The request body is not valid JSON.'));
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return sendProblem(reply, new OnejobError('request_invalid', 'The request could not be read.'));
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    return sendProblem(
      reply,
      new OnejobError('database_unavailable', 'The database cannot be reached right now.'),
    );
  }
  // A backstop: input checks should refuse such values before any SQL. If one slips
  // through, it is still the request's value at fault, not the server.
  if (isDataException(error)) {
    request.log.warn({ err: error }, 'the database refused a value in the request');
    return sendProblem(
      reply,
      new OnejobError(
        'value_invalid',
        'A value in the request cannot be stored or compared by the database.',
      ),
    );
  }
  request.log.error({ err: error }, 'unexpected error');
  return sendProblem(
    reply,
    new OnejobError('internal_error', `Request ${request.id} failed; see the server log.`),
  );
}
