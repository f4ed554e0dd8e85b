import type { Command } from 'commander';
import { defaultConfig } from '../../config/defaultConfig.js';
import { createOnejob } from '../../createOnejob.js';
import { createLogger } from '../../observability/createLogger.js';
import { commandDatabase } from '../commandDatabase.js';
import { parseTimeOrAgo } from '../parseTime.js';

export function archiveCommand(program: Command) {
  program
    .command('archive')
    .description(
      'move finished jobs out of the hot tables, keeping a tombstone per idempotency key (DATABASE_URL, else ./.onejob)',
    )
    .requiredOption(
      '--finished-before <time>',
      'RFC 3339 instant (2025-01-31T00:00:00Z), a date (midnight UTC), or a duration before now such as 30d',
    )
    .option('--batch-size <n>', 'jobs per transaction', '500')
    .action(async (opts: { finishedBefore: string; batchSize: string }) => {
      const before = parseTimeOrAgo(opts.finishedBefore);
      const db = await commandDatabase();
      const onejob = createOnejob({
        connectionString: db.connectionString,
        config: defaultConfig,
        logger: createLogger('warn'),
      });
      try {
        const { archived } = await onejob.jobs.archive(before, { batchSize: Number(opts.batchSize) });
        process.stdout.write(`archived ${archived} jobs finished before ${before.toISOString()}\n`);
      } finally {
        await onejob.close();
        await db.close();
      }
    });
}
