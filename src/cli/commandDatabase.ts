// The database of `migrate` and `archive`, the only commands besides `serve` that use one:
// DATABASE_URL, else the embedded database `onejob serve` created in ./.onejob. They never
// create one: a command run in the wrong folder says so instead of initialising a new server.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startEmbedded } from '../db/startEmbedded.js';
import { CliConfigError } from './clientConfig.js';

export interface CommandDatabase {
  connectionString: string;
  close(): Promise<void>;
}

export async function commandDatabase(env = process.env, cwd = process.cwd()): Promise<CommandDatabase> {
  if (env.DATABASE_URL) return { connectionString: env.DATABASE_URL, close: async () => {} };
  const home = resolve(cwd, '.onejob');
  if (!existsSync(join(home, 'pg', 'PG_VERSION'))) {
    throw new CliConfigError(
      [
        'no database: set DATABASE_URL, e.g.',
        '  export DATABASE_URL=postgres://user:password@host:5432/onejob',
        `or run this in the folder where \`onejob serve\` keeps its embedded database (.onejob/; none in ${cwd}).`,
      ].join('\n'),
    );
  }
  // Uses the server's database if `onejob serve` runs it, else starts it for the command and stops it after.
  const embedded = await startEmbedded(home, { command: `onejob ${process.argv[2] ?? 'command'}` });
  return {
    connectionString: embedded.connectionString,
    close: () => embedded.stop({ waitForSessionsMs: 5_000 }),
  };
}
