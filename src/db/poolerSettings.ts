// What sits between onejob and PostgreSQL, from `database.pooler` and the environment
// (docs/operations.md#poolers). A transaction pooler (PgBouncer with pool_mode =
// transaction) hands each transaction to whichever server connection is free, so
// nothing that lives in a session survives from one transaction to the next.

import { ConfigError } from '../config/ConfigError.js';
import type { DatabaseConfig } from '../config/types.js';

/**
 * `none`: PostgreSQL itself; `session`: a pooler that keeps one server session per
 * client (PgBouncer's session mode); `transaction`: a pooler that may change the server
 * session between transactions. Undefined: not declared, so onejob checks at start.
 */
export type PoolerMode = 'none' | 'session' | 'transaction';

const MODES: readonly PoolerMode[] = ['none', 'session', 'transaction'];

/** The environment variable that overrides `database.pooler`. */
export const POOLER_ENV = 'ONEJOB_DATABASE_POOLER';
/** A direct (unpooled) URL of the same database, for LISTEN and migrations. */
export const DIRECT_URL_ENV = 'DATABASE_DIRECT_URL';

/** Defaults of `database` (docs/configuration.md). */
export const DATABASE_DEFAULTS = {
  /** How often waiters look again when no LISTEN connection can tell them (transaction pooler, no direct URL). */
  pollMs: 1_000,
} as const;

export interface PoolerSettings {
  mode: PoolerMode | undefined;
  /** `DATABASE_DIRECT_URL`, when set: LISTEN and migrations go there. */
  directUrl: string | undefined;
  /** The interval of the polling that replaces LISTEN when there is no direct URL. */
  pollMs: number;
}

/** `database.pooler`, overridden by `ONEJOB_DATABASE_POOLER`; `DATABASE_DIRECT_URL`. */
export function poolerSettings(
  database: DatabaseConfig | undefined,
  env: NodeJS.ProcessEnv = process.env,
): PoolerSettings {
  const fromEnv = env[POOLER_ENV];
  if (fromEnv !== undefined && fromEnv !== '' && !MODES.includes(fromEnv as PoolerMode))
    throw new ConfigError(POOLER_ENV, `must be one of ${MODES.join(', ')}`, 'environment');
  const mode = (fromEnv || database?.pooler) as PoolerMode | undefined;
  return {
    mode,
    directUrl: env[DIRECT_URL_ENV] || undefined,
    pollMs: database?.pollMs ?? DATABASE_DEFAULTS.pollMs,
  };
}

/** True when every transaction may land on another server session. */
export const isTransactionPooler = (settings: Pick<PoolerSettings, 'mode'>): boolean =>
  settings.mode === 'transaction';
