import type { Command } from 'commander';
import { migrate } from '../../db/migrate.js';
import { startEmbedded } from '../../db/startEmbedded.js';

export function migrateCommand(program: Command) {
  program
    .command('migrate')
    .description('apply database migrations and exit (safe to run from many processes at once)')
    .action(async () => {
      const embedded = process.env.DATABASE_URL ? undefined : await startEmbedded('.onejob');
      try {
        const result = await migrate(process.env.DATABASE_URL ?? embedded!.connectionString);
        process.stdout.write(
          result.applied.length
            ? `applied ${result.applied.join(', ')}; database at migration ${result.current}\n`
            : `nothing to apply; database at migration ${result.current}\n`,
        );
      } finally {
        await embedded?.stop();
      }
    });
}
