import type { Command } from 'commander';
import { migrate } from '../../db/migrate.js';
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
        const result = await migrate(db.connectionString);
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
