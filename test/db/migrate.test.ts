import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { createEmptyDatabase, type TestDatabase } from '../helpers/testDatabase.js';

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
});
