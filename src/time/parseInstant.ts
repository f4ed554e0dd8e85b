// Strict ISO 8601 instants, checked before any SQL. `new Date()` rolls 2025-02-30 over to
// March 2 and PostgreSQL refuses it (SQLSTATE 22008); both are wrong answers to a caller
// who made a typo. Only real calendar dates with an explicit offset pass: without an
// offset PostgreSQL would read the instant in the session time zone. At most six
// fractional digits: PostgreSQL keeps microseconds and rounds the rest, so
// 9999-12-31T23:59:59.9999999Z would come back as year 10000, which no caller could send back.

const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?(Z|([+-])(\d{2})(?::?(\d{2}))?)$/i;

// Date.UTC maps years 0-99 to 1900-1999, so dates are built with setUTCFullYear.
function utcDate(year: number, monthIndex: number, day: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, monthIndex, day);
  return d;
}

/** Instants are kept between these (UTC), well inside what PostgreSQL and JavaScript hold. */
const MIN_MS = utcDate(1, 0, 1).getTime();
const MAX_MS = utcDate(10000, 0, 1).getTime() - 1;

/**
 * The instant `value` names, or undefined when it is not a real ISO 8601 date-time with a
 * time zone (Z or ±hh:mm), at most microseconds, between years 0001 and 9999 UTC.
 */
export function parseInstant(value: string): Date | undefined {
  const m = INSTANT.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (year < 1 || month < 1 || month > 12 || day < 1) return undefined;
  // Day 0 of the next month is the last day of this one.
  if (day > utcDate(year, month, 0).getUTCDate() || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (m[8]?.toUpperCase() !== 'Z') {
    const h = Number(m[10]);
    const min = m[11] === undefined ? 0 : Number(m[11]);
    if (h > 15 || min > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (h * 60 + min);
  }
  const utc = utcDate(year, month - 1, day);
  utc.setUTCHours(hour, minute - offsetMinutes, second, Math.floor(Number(m[7] ?? 0) * 1000));
  const ms = utc.getTime();
  if (Number.isNaN(ms) || ms < MIN_MS || ms > MAX_MS) return undefined;
  return utc;
}
