import type { Command } from 'commander';
import { listInboxEvents } from '../../inbox/listInboxEvents.js';
import { formatTable, printJson } from '../formatTable.js';
import { withDatabase } from './ledgerDatabase.js';

export function inboxCommand(program: Command) {
  const inbox = program
    .command('inbox')
    .description('signed webhooks received (one row per event, however often delivered)');
  inbox
    .command('list')
    .description('recorded webhook events, newest first, with their job and delivery count')
    .option('--source <name>', 'only this source')
    .option('--limit <n>', 'events to show', '50')
    .option('--json', 'print JSON instead of text')
    .action(async (opts: { source?: string; limit: string; json?: boolean }) => {
      const events = await withDatabase((pool) =>
        listInboxEvents(pool, { source: opts.source ?? null, limit: Number(opts.limit) }),
      );
      if (opts.json) return printJson(events);
      const rows = events.map((e) => [
        e.firstReceivedAt,
        e.source,
        e.eventId,
        e.ownerId,
        e.jobId,
        e.deliveries,
        e.differingPayloads,
        e.lastReceivedAt,
      ]);
      process.stdout.write(
        `${formatTable(['first received', 'source', 'event id', 'owner', 'job', 'deliveries', 'differing bodies', 'last received'], rows)}\n`,
      );
    });
}
