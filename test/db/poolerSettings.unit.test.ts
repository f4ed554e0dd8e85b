import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/ConfigError.js';
import { migrationUrl } from '../../src/db/migrationUrl.js';
import { DATABASE_DEFAULTS, poolerSettings } from '../../src/db/poolerSettings.js';
import { validateConfig } from '../../src/engine/loadConfig.js';
import { isOnejobError } from '../../src/errors/OnejobError.js';

const POOLED = 'postgres://u@pooler:6432/app';
const DIRECT = 'postgres://u@db:5432/app';

describe('pooler settings', () => {
  it('leave the mode undeclared by default, so the start checks for a pooler', () => {
    expect(poolerSettings(undefined, {})).toEqual({
      mode: undefined,
      directUrl: undefined,
      pollMs: DATABASE_DEFAULTS.pollMs,
    });
  });

  it('take database.pooler from the config and let ONEJOB_DATABASE_POOLER override it', () => {
    expect(poolerSettings({ pooler: 'session' }, {}).mode).toBe('session');
    expect(poolerSettings({ pooler: 'none' }, { ONEJOB_DATABASE_POOLER: 'transaction' }).mode).toBe(
      'transaction',
    );
    expect(poolerSettings({ pollMs: 250 }, { DATABASE_DIRECT_URL: DIRECT })).toMatchObject({
      directUrl: DIRECT,
      pollMs: 250,
    });
  });

  it('refuse an unknown ONEJOB_DATABASE_POOLER, naming the variable', () => {
    expect(() => poolerSettings(undefined, { ONEJOB_DATABASE_POOLER: 'statement' })).toThrow(ConfigError);
    expect(() => poolerSettings(undefined, { ONEJOB_DATABASE_POOLER: 'statement' })).toThrow(
      /ONEJOB_DATABASE_POOLER must be one of none, session, transaction/,
    );
  });

  it('are a config section whose unknown keys and modes are refused', () => {
    const base = { providers: {}, operations: {} };
    expect(validateConfig({ ...base, database: { pooler: 'transaction' } }, 'c', {}).database).toEqual({
      pooler: 'transaction',
    });
    expect(() => validateConfig({ ...base, database: { pooler: 'statement' } }, 'c', {})).toThrow(
      /\/database\/pooler/,
    );
    expect(() => validateConfig({ ...base, database: { poolr: 'transaction' } }, 'c', {})).toThrow(
      /\/database\/poolr is not a known key/,
    );
  });
});

describe('migrations behind a pooler', () => {
  it('run over DATABASE_DIRECT_URL whenever it is set', () => {
    expect(
      migrationUrl(poolerSettings({ pooler: 'transaction' }, { DATABASE_DIRECT_URL: DIRECT }), POOLED),
    ).toBe(DIRECT);
  });

  it('run over DATABASE_URL when no transaction pooler is declared', () => {
    expect(migrationUrl(poolerSettings(undefined, {}), DIRECT)).toBe(DIRECT);
    expect(migrationUrl(poolerSettings({ pooler: 'session' }, {}), POOLED)).toBe(POOLED);
  });

  it('are refused through a transaction pooler without a direct URL, naming DATABASE_DIRECT_URL', () => {
    let error: unknown;
    try {
      migrationUrl(poolerSettings(undefined, { ONEJOB_DATABASE_POOLER: 'transaction' }), POOLED);
    } catch (e) {
      error = e;
    }
    expect(isOnejobError(error, 'database_pooler_migration_refused')).toBe(true);
    expect((error as Error).message).toContain('DATABASE_DIRECT_URL');
  });
});
