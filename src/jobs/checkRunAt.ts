import { OnejobError } from '../errors/OnejobError.js';
import { parseInstant } from '../time/parseInstant.js';

/**
 * The instant a job waits for, or null when the request names none. A string must be a
 * real RFC 3339 instant with a time zone (src/time/parseInstant.ts), a Date a valid one
 * PostgreSQL can store; anything else is `request_invalid` naming the field, before
 * anything is written. Kept to the millisecond, as every instant onejob answers with:
 * two requests whose runAt differ below a millisecond ask for the same job.
 */
export function checkRunAt(value: unknown): Date | null {
  if (value === undefined || value === null) return null;
  const date =
    typeof value === 'string'
      ? parseInstant(value)
      : value instanceof Date && !Number.isNaN(value.getTime())
        ? parseInstant(value.toISOString())
        : undefined;
  if (!date) {
    throw new OnejobError(
      'request_invalid',
      'runAt must be an RFC 3339 instant with a time zone, between years 0001 and 9999, such as 2025-01-31T14:02:00Z',
    );
  }
  return date;
}
