import { OnejobError } from '../errors/OnejobError.js';
import { DIRECT_URL_ENV, POOLER_ENV, type PoolerSettings } from './poolerSettings.js';

/**
 * Where migrations run. The runner serialises concurrent starts with a session advisory
 * lock and runs each migration on the same session, which a transaction pooler does not
 * keep: the direct URL when one is set, and never the pooler itself.
 */
export function migrationUrl(settings: PoolerSettings, databaseUrl: string): string {
  if (settings.directUrl) return settings.directUrl;
  if (settings.mode !== 'transaction') return databaseUrl;
  throw new OnejobError(
    'database_pooler_migration_refused',
    `migrations hold a session lock, which a transaction pooler does not keep (${POOLER_ENV} / ` +
      `database.pooler is "transaction"): set ${DIRECT_URL_ENV} to the database itself, bypassing ` +
      'the pooler, or run `onejob migrate` with DATABASE_URL pointing at it',
  );
}
