import type { Logger } from 'pino';
import type { Queryable } from './createPool.js';

/**
 * Warns once when the server's autovacuum is off. onejob's hot statements are prepared once
 * per connection, and PostgreSQL keeps each plan until ANALYZE changes the statistics of a
 * table it reads. Without autovacuum nothing runs ANALYZE: plans made while the tables were
 * small stay in use as they grow, and statements that should read a few rows by index can
 * come to read whole tables. Returns whether it warned.
 */
export async function warnIfAutovacuumOff(db: Queryable, logger: Logger): Promise<boolean> {
  const { rows } = await db.query<{ off: boolean }>(`SELECT current_setting('autovacuum') = 'off' AS off`);
  if (!rows[0]?.off) return false;
  logger.warn(
    { see: 'docs/operations.md, "Statistics and plans"' },
    'PostgreSQL autovacuum is off: run ANALYZE on schema onejob regularly (hourly, and after bulk loads), or plans made while its tables were small will slow every request as they grow',
  );
  return true;
}
