import type pg from 'pg';
import type { Logger } from 'pino';
import { isTransactionPooler, type PoolerSettings } from '../db/poolerSettings.js';
import { NotificationHub } from './notificationHub.js';
import { PollingNotificationHub } from './pollingNotificationHub.js';

/**
 * The process's notification hub for where the database is. Directly or through a session
 * pooler: one LISTEN connection on `connectionString` (or a pool client). Through a
 * transaction pooler: LISTEN on the direct URL when there is one, else no LISTEN at all and
 * every waiter looks again each `pollMs`, with one warning at start.
 */
export function createNotificationHub(
  pool: pg.Pool,
  pooler: PoolerSettings,
  options: { logger: Logger; connectionString: string | undefined },
): NotificationHub {
  const { logger } = options;
  if (!isTransactionPooler(pooler)) return new NotificationHub(pool, options);
  if (pooler.directUrl) return new NotificationHub(pool, { logger, connectionString: pooler.directUrl });
  logger.warn(
    { pollMs: pooler.pollMs },
    'database.pooler is "transaction" and DATABASE_DIRECT_URL is not set: no LISTEN, so long-polls ' +
      `and relays look for changes every ${pooler.pollMs} ms instead of being woken (set DATABASE_DIRECT_URL ` +
      'to the database itself to be woken at once)',
  );
  return new PollingNotificationHub(pool, { logger, pollMs: pooler.pollMs });
}
