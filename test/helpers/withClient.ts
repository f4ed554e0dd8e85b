// One connection for one piece of work: opened, used, always closed. For the setup and
// admin statements of tests, chaos and bench, which need no pool.
import pg from 'pg';

/** Runs `fn` on a fresh client of `url` and closes it, whatever `fn` does. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
