// A database of its own on a PostgreSQL server, created and dropped through the server's
// admin URL: the bench's databases and the chaos run's on the system server.
import { withClient } from './withClient.js';

export interface ServerDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

const admin = (adminUrl: string, sql: string) => withClient(adminUrl, async (c) => void (await c.query(sql)));

/** Creates database `name` (our own identifier, never user input) on the server of `adminUrl`. */
export async function createServerDatabase(adminUrl: string, name: string): Promise<ServerDatabase> {
  await admin(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => admin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
