import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { isOnejobError } from '../../src/errors/OnejobError.js';
import { spawnOnejob } from '../helpers/spawnOnejob.js';
import { createEmptyDatabase, createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createEmptyDatabase();
});
afterAll(async () => db?.drop());

describe('migrations', () => {
  it('ten migrators started at once apply each migration exactly once', async () => {
    const expected = (await loadMigrations()).map((m) => m.name);
    const results = await Promise.all(Array.from({ length: 10 }, () => migrate(db.url)));
    const applied = results.flatMap((r) => r.applied);
    expect(applied.sort()).toEqual([...expected].sort());
    const latest = (await loadMigrations()).at(-1)?.version;
    for (const r of results) expect(r.current).toBe(latest);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT version, name FROM onejob.migrations ORDER BY version');
      expect(rows.map((r) => r.name)).toEqual(expected);
    } finally {
      await client.end();
    }
  });

  it('running again applies nothing', async () => {
    const again = await migrate(db.url);
    expect(again.applied).toEqual([]);
  });

  it('migration files have unique, increasing versions and the first is the core schema', async () => {
    const migrations = await loadMigrations();
    for (const [i, m] of migrations.slice(1).entries())
      expect(m.version).toBeGreaterThan(migrations[i]!.version);
    expect(migrations[0]?.name).toBe('0001_core');
  });

  describe('a database migrated by a newer version', () => {
    let newer: TestDatabase;
    beforeAll(async () => {
      newer = await createTestDatabase();
      const client = new pg.Client({ connectionString: newer.url });
      await client.connect();
      try {
        await client.query(
          `INSERT INTO onejob.migrations (version, name) VALUES (9999, '9999_from_the_future')`,
        );
      } finally {
        await client.end();
      }
    });
    afterAll(async () => newer?.drop());

    it('migrate refuses it with database_newer_than_code naming the unknown migration', async () => {
      const error = await migrate(newer.url).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isOnejobError(error, 'database_newer_than_code')).toBe(true);
      expect((error as Error).message).toMatch(/9999 \(9999_from_the_future\)/);
    });

    it('onejob serve refuses to start against it and says why', async () => {
      const serve = spawnOnejob(['serve'], {
        DATABASE_URL: newer.url,
        ONEJOB_API_KEYS: 'tok=owner',
        PORT: '0',
      });
      const exit = await serve.exited;
      expect(exit).toBe(1);
      expect(serve.output()).toMatch(/does not know/);
      expect(serve.output()).toMatch(/9999_from_the_future/);
    });
  });
});
