// A request that fails its route's schema, as `request_invalid` naming the field: the
// detail says which field and what is wrong with it, an unknown property by its name, and
// `param` carries the field's path for a client to branch on (as the compat routes do).
import type { FastifySchemaValidationError } from 'fastify';
import { OnejobError } from '../errors/OnejobError.js';

// Fastify's names for the parts of a request a schema covers, as a client knows them.
const PARTS: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A JSON pointer's segments as a path a reader knows: `input.items[0]["a b"]`. */
function fieldPath(pointer: string, extra?: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) segments.push(extra);
  let path = '';
  for (const s of segments) {
    if (/^\d+$/.test(s)) path += `[${s}]`;
    else if (IDENTIFIER.test(s)) path += path ? `.${s}` : s;
    else path += `[${JSON.stringify(s)}]`;
  }
  return path;
}

interface Described {
  param: string;
  message: string;
}

function describe(error: FastifySchemaValidationError): Described {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const name = String(params.additionalProperty);
    const known = Object.keys(
      (error as { parentSchema?: { properties?: Record<string, unknown> } }).parentSchema?.properties ?? {},
    );
    return {
      param: fieldPath(error.instancePath, name),
      message: `is not a known property${known.length ? ` (known: ${known.join(', ')})` : ''}`,
    };
  }
  if (error.keyword === 'required')
    return { param: fieldPath(error.instancePath, String(params.missingProperty)), message: 'is required' };
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues))
    return {
      param: fieldPath(error.instancePath),
      message: `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`,
    };
  return { param: fieldPath(error.instancePath), message: error.message ?? 'is invalid' };
}

/**
 * `request_invalid` for a schema failure in `context` (body, querystring, params, headers):
 * "body field colour is not a known property (known: operation, input)".
 */
export function validationProblem(
  errors: readonly FastifySchemaValidationError[],
  context: string | undefined,
): OnejobError {
  const part = PARTS[context ?? ''] ?? context ?? 'request';
  const described = errors.map(describe);
  const detail = described
    .map(({ param, message }) => (param ? `${part} field ${param} ${message}` : `${part} ${message}`))
    .join('; ');
  const first = described[0];
  return new OnejobError('request_invalid', detail, first?.param ? { param: first.param } : undefined);
}
