import { parseInstant } from '../time/parseInstant.js';

/**
 * An instant, as the API reads one (src/time/parseInstant.ts: a real calendar date with a
 * time zone, so 2025-02-30 is refused instead of rolling over to March 2), a bare date
 * (midnight UTC), or a duration before now such as `30d`, `12h`, `90m`.
 */
export function parseTimeOrAgo(value: string, now = Date.now()): Date {
  const ago = /^(\d+)(s|m|h|d)$/.exec(value);
  if (ago) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[ago[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(now - Number(ago[1]) * unit);
  }
  const instant = parseInstant(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (!instant)
    throw new Error(
      `"${value}" is neither an RFC 3339 instant with a time zone (2025-01-31T14:02:00Z), a date (2025-01-31) nor a duration like 30d`,
    );
  return instant;
}
