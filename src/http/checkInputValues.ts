import type { FastifyRequest } from 'fastify';
import { OnejobError } from '../errors/OnejobError.js';

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 64;

// PostgreSQL keeps neither NUL (text refuses it, jsonb refuses \u0000) nor a UTF-16
// surrogate without its partner (it has no UTF-8 form).
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this refuses.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function refuseString(value: string, where: string): void {
  if (UNSTORABLE.test(value)) {
    throw new OnejobError(
      'value_invalid',
      `${where} holds a NUL character or a lone UTF-16 surrogate, which cannot be stored.`,
    );
  }
}

/**
 * Most values (strings, numbers, keys, arrays and objects) a JSON body may hold. A 1 MiB
 * body can hold half a million of them, and every later step (this walk, the input
 * schema, canonical JSON for the fingerprint) is paid per value; real inputs hold far fewer.
 */
export const MAX_JSON_VALUES = 100_000;

/**
 * Refuses, before any SQL, values the database cannot store: NUL and lone
 * surrogates in any string or key, numbers JSON.parse turned into Infinity (`1e400`), and
 * nesting deeper than MAX_JSON_DEPTH (serialising it again would exhaust the stack); and
 * bodies of more than MAX_JSON_VALUES values. Iterative, so a hostile depth cannot
 * overflow the stack here either, and with two flat stacks instead of a pair per value,
 * so the walk allocates next to nothing.
 */
export function checkJsonValue(root: unknown, where: string): void {
  const values: unknown[] = [root];
  const depths: number[] = [0];
  let seen = 0;
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop() as number;
    if (++seen > MAX_JSON_VALUES) {
      throw new OnejobError(
        'payload_too_many_values',
        `${where} holds more than ${MAX_JSON_VALUES} values (strings, numbers, keys, arrays, objects).`,
      );
    }
    if (typeof value === 'string') refuseString(value, where);
    else if (typeof value === 'number') {
      if (!Number.isFinite(value))
        throw new OnejobError('value_invalid', `${where} holds a number out of range.`);
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_JSON_DEPTH) {
        throw new OnejobError('request_invalid', `${where} is nested deeper than ${MAX_JSON_DEPTH} levels.`);
      }
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          values.push(value[i]);
          depths.push(depth + 1);
        }
      } else {
        for (const key in value) {
          if (!Object.hasOwn(value, key)) continue;
          seen++;
          refuseString(key, where);
          values.push((value as Record<string, unknown>)[key]);
          depths.push(depth + 1);
        }
      }
    }
  }
}

/** The preHandler hook: the body (when parsed JSON), query string and path parameters. */
export async function checkInputValues(request: FastifyRequest): Promise<void> {
  if (request.body !== undefined && !Buffer.isBuffer(request.body)) checkJsonValue(request.body, 'The body');
  checkJsonValue(request.query, 'The query string');
  checkJsonValue(request.params, 'The path');
}
