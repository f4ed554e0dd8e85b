import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/db/createPool.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

describe('pool', () => {
  it('a checked-out client whose server connection dies fails its next statement instead of killing the process', async () => {
    const pool = createPool({ connectionString: db.url });
    try {
      const client = await pool.connect();
      // Without a listener of its own, the 'error' event below would be an uncaught exception.
      expect(client.listenerCount('error')).toBeGreaterThan(0);
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
      await pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await ended;
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(true);
      expect((await pool.query('SELECT 1 AS ok')).rows[0].ok).toBe(1);
    } finally {
      await pool.end();
    }
  });
});
