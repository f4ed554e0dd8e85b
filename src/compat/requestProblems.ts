// Small readers for the request normalisers: each throws `request_invalid` naming the
// parameter, the way both SDKs report a bad argument (`param` in OpenAI's error body).
import { OnejobError } from '../errors/OnejobError.js';

export function invalid(param: string, message: string): OnejobError {
  return new OnejobError('request_invalid', `${param}: ${message}`, { param });
}

export function unsupported(param: string, why: string): OnejobError {
  return new OnejobError('request_invalid', `${param} is not supported by onejob's compat endpoint: ${why}`, {
    param,
  });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function optionalNumber(
  body: Record<string, unknown>,
  param: string,
  min: number,
  max: number,
): number | undefined {
  const value = body[param];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw invalid(param, `must be a number from ${min} to ${max}`);
  return value;
}

export function optionalInteger(body: Record<string, unknown>, param: string): number | undefined {
  const value = body[param];
  if (value === undefined || value === null) return undefined;
  if (!Number.isSafeInteger(value) || (value as number) < 1)
    throw invalid(param, 'must be a positive integer');
  return value as number;
}

/** Text content: a string, or an array of text parts joined by a newline. */
export function textContent(value: unknown, param: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw invalid(param, 'must be a string or an array of text parts');
  return value
    .map((part, i) => {
      if (!isObject(part) || part.type !== 'text' || typeof part.text !== 'string')
        throw unsupported(
          `${param}[${i}]`,
          `only text parts are accepted, not ${isObject(part) ? String(part.type) : typeof part}`,
        );
      return part.text;
    })
    .join('\n');
}

/** Refuses every key not in `known`: a parameter onejob would drop is a request it would change. */
export function refuseUnknown(body: Record<string, unknown>, known: ReadonlySet<string>, prefix = ''): void {
  for (const key of Object.keys(body)) {
    if (!known.has(key))
      throw unsupported(`${prefix}${key}`, 'onejob would have to drop it, which changes the request');
  }
}
