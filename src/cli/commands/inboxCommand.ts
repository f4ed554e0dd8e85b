// `onejob inbox list`: the token owner's recorded webhooks, read through the HTTP API.
import type { Command } from 'commander';
import type { InboxEventList } from '../../client/index.js';
import { cliClient } from '../clientConfig.js';
import { formatTable, printJson } from '../formatTable.js';
import { printText } from '../terminalText.js';

export function inboxCommand(program: Command) {
  const inbox = program
    .command('inbox')
    .description('signed webhooks received (one row per event, however often delivered)');
  inbox
    .command('list')
    .description("the token owner's recorded webhook events, newest first, with their job and delivery count")
    .option('--source <name>', 'only this source')
    .option('--limit <n>', 'events to show (1 to 500)', '50')
    .option('--json', 'print JSON instead of text')
    .action(async (opts: { source?: string; limit: string; json?: boolean }) => {
      const { items } = await cliClient().request<InboxEventList>('GET', '/v1/inbox-events', {
        query: { source: opts.source, limit: opts.limit },
      });
      if (opts.json) return printJson(items);
      const rows = items.map((e) => [
        e.firstReceivedAt,
        e.source,
        e.eventId,
        e.jobId,
        e.deliveries,
        e.differingPayloads,
        e.lastReceivedAt,
      ]);
      printText(
        `${formatTable(['first received', 'source', 'event id', 'job', 'deliveries', 'differing bodies', 'last received'], rows)}\n`,
      );
    });
}
