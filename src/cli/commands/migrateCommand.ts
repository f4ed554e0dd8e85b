import type { Command } from 'commander';
import { refuseUndeclaredPooler } from '../../db/detectPooler.js';
import { migrate } from '../../db/migrate.js';
import { migrationUrl } from '../../db/migrationUrl.js';
import { poolerSettings } from '../../db/poolerSettings.js';
import { commandDatabase } from '../commandDatabase.js';

export function migrateCommand(program: Command) {
  program
    .command('migrate')
    .description(
      'apply database migrations and exit (DATABASE_URL, else ./.onejob; safe to run from many processes at once)',
    )
    .action(async () => {
      const db = await commandDatabase();
      try {
        // Only the environment says where a pooler is here (ONEJOB_DATABASE_POOLER, DATABASE_DIRECT_URL).
        const pooler = poolerSettings(undefined, process.env);
        const url = migrationUrl(pooler, db.connectionString);
        if (process.env.DATABASE_URL && url === db.connectionString)
          await refuseUndeclaredPooler(pooler, url);
        const result = await migrate(url);
        process.stdout.write(
          result.applied.length
            ? `applied ${result.applied.join(', ')}; database at migration ${result.current}\n`
            : `nothing to apply; database at migration ${result.current}\n`,
        );
      } finally {
        await db.close();
      }
    });
}
