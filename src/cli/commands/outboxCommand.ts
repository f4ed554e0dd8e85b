// `onejob outbox backlog|dead-letters|replay`: the operator's view of the outbox, through
// the server's operator routes (ONEJOB_ADMIN_TOKEN, else .onejob/admin-token).
import type { Command } from 'commander';
import type { Backlog, DeadLetterPage, Replayed } from '../../client/index.js';
import { cliClient } from '../clientConfig.js';
import { escapeControls, printText, terminalJson } from '../terminalText.js';

const print = (text: string) => printText(`${text}\n`);

export function outboxCommand(program: Command) {
  const outbox = program
    .command('outbox')
    .description(
      'outbox backlog and dead letters of a running server (needs the admin token: ONEJOB_ADMIN_TOKEN, else .onejob/admin-token)',
    );

  outbox
    .command('backlog')
    .description('pending and dead deliveries per publisher')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { publishers } = await cliClient(undefined, 'admin').request<Backlog>(
        'GET',
        '/v1/outbox/backlog',
      );
      if (opts.json) return print(terminalJson(publishers));
      if (publishers.length === 0) return print('no publisher has run yet');
      print('PUBLISHER            KIND      PENDING   DEAD  OLDEST PENDING');
      for (const b of publishers) {
        print(
          `${b.publisher.padEnd(20)} ${b.kind.padEnd(9)} ${String(b.pending).padStart(7)} ${String(b.dead).padStart(6)}  ${b.pending ? `${b.oldestAgeSeconds.toFixed(1)} s` : '-'}`,
        );
      }
    });

  outbox
    .command('dead-letters')
    .description('events a publisher gave up on after maxDeliveries refused tries, newest first')
    .option('--publisher <name>', 'only this publisher')
    .option('--limit <n>', 'how many', '50')
    .option('--cursor <cursor>', 'next page, from a previous --json output')
    .option('--json', 'print JSON (with nextCursor)')
    .action(async (opts: { publisher?: string; limit: string; cursor?: string; json?: boolean }) => {
      const page = await cliClient(undefined, 'admin').request<DeadLetterPage>(
        'GET',
        '/v1/outbox/dead-letters',
        {
          query: { publisher: opts.publisher, limit: opts.limit, cursor: opts.cursor },
        },
      );
      if (opts.json) return print(terminalJson(page));
      if (page.items.length === 0) return print('no dead letters');
      for (const d of page.items) {
        print(
          `${d.eventId}  ${d.publisher}  ${d.type}  subject=${d.subject}  tries=${d.attempts}  dead at ${d.deadAt}`,
        );
        if (d.lastError) print(`    last error: ${escapeControls(d.lastError)}`);
      }
      if (page.nextCursor) print(`more: --cursor ${page.nextCursor}`);
    });

  outbox
    .command('replay <eventId>')
    .description('send a dead letter back to the relay, with the same event id')
    .option('--publisher <name>', 'only for this publisher (default: every publisher it is dead for)')
    .action(async (eventId: string, opts: { publisher?: string }) => {
      const { replayed } = await cliClient(undefined, 'admin').request<Replayed>(
        'POST',
        `/v1/outbox/dead-letters/${encodeURIComponent(eventId)}/replay`,
        {
          body: opts.publisher ? { publisher: opts.publisher } : {},
        },
      );
      for (const r of replayed) print(`replaying ${r.eventId} to ${r.publisher}`);
    });
}
