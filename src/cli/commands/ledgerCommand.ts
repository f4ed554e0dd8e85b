// `onejob ledger accounts|balance|entries`: the token owner's ledger, read through the HTTP API.
import type { Command } from 'commander';
import { type AccountPage, type Balance, type EntryPage, isOnejobClientError } from '../../client/index.js';
import { cliClient } from '../clientConfig.js';
import { formatTable, printJson } from '../formatTable.js';
import { parseTimeOrAgo } from '../parseTime.js';
import { printText } from '../terminalText.js';

interface LedgerOptions {
  asOf?: string;
  json?: boolean;
}

// An ISO time goes through as text, keeping microseconds (recordedAt values have them).
const asOfOf = (opts: LedgerOptions) =>
  !opts.asOf
    ? undefined
    : /^\d{4}-\d{2}-\d{2}T/.test(opts.asOf)
      ? opts.asOf
      : parseTimeOrAgo(opts.asOf).toISOString();

// Pending transfers not yet posted or voided: debits held out, credits held in.
const held = (a: { heldDebits: number; heldCredits: number }) =>
  a.heldDebits || a.heldCredits ? `-${a.heldDebits} +${a.heldCredits}` : '0';

const accountPath = (account: string) => `/v1/ledger/accounts/${encodeURIComponent(account)}`;

// Account names such as `usage:USD_MICROS` are not guessable: a 404 says where to find them.
async function naming<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isOnejobClientError(error, 'account_not_found') && error instanceof Error)
      error.message += '\n`onejob ledger accounts` lists the names of your accounts.';
    throw error;
  }
}

export function ledgerCommand(program: Command) {
  const ledger = program
    .command('ledger')
    .description("read the token owner's append-only ledger (balances and entries, as of any instant)");
  const common = (c: Command) =>
    c
      .option(
        '--as-of <time>',
        'ISO time, or a duration before now such as 2h: only transfers recorded by then count',
      )
      .option('--json', 'print the JSON document instead of text');

  common(
    ledger
      .command('accounts')
      .description(
        "the owner's accounts by name, with their balances (attempt costs post to usage:<currency>)",
      ),
  )
    .option('--limit <n>', 'accounts to show', '100')
    .action(async (opts: LedgerOptions & { limit: string }) => {
      const page = await cliClient().request<AccountPage>('GET', '/v1/ledger/accounts', {
        query: { asOf: asOfOf(opts), limit: opts.limit },
      });
      if (opts.json) return printJson(page);
      if (page.items.length === 0) return printText(`No accounts as of ${page.asOf}.\n`);
      printText(
        `${formatTable(
          ['account', 'currency', 'balance', 'debits', 'credits', 'held', 'available'],
          page.items.map((a) => [
            a.account,
            a.currency,
            a.balance,
            a.debits,
            a.credits,
            held(a),
            a.available,
          ]),
        )}\n`,
      );
      printText(`as of ${page.asOf}\n`);
      if (page.nextAfter) printText(`(more accounts: raise --limit)\n`);
    });

  common(ledger.command('balance <account>').description('balance of an account: credits - debits')).action(
    async (account: string, opts: LedgerOptions) => {
      const balance = await naming(() =>
        cliClient().request<Balance>('GET', accountPath(account), { query: { asOf: asOfOf(opts) } }),
      );
      if (opts.json) return printJson(balance);
      printText(
        `${formatTable(
          ['account', 'currency', 'balance', 'debits', 'credits', 'held', 'available', 'as of'],
          [
            [
              balance.account,
              balance.currency,
              balance.balance,
              balance.debits,
              balance.credits,
              held(balance),
              balance.available,
              balance.asOf,
            ],
          ],
        )}\n`,
      );
    },
  );

  common(
    ledger
      .command('entries <account>')
      .description('entries of an account, oldest first; originals and reversals'),
  )
    .option('--limit <n>', 'entries to show', '100')
    .action(async (account: string, opts: LedgerOptions & { limit: string }) => {
      const page = await naming(() =>
        cliClient().request<EntryPage>('GET', `${accountPath(account)}/entries`, {
          query: { asOf: asOfOf(opts), limit: opts.limit },
        }),
      );
      if (opts.json) return printJson(page);
      const rows = page.items.map((e) => [
        e.recordedAt,
        e.transferId,
        e.side,
        e.side === 'debit' ? -e.amount : e.amount,
        e.counterparty,
        e.reverses ? `reverses ${e.reverses}` : e.reversedBy ? `reversed by ${e.reversedBy}` : '',
        e.reason ?? e.reference,
      ]);
      printText(`${page.account} (${page.currency}) as of ${page.asOf}\n`);
      printText(
        `${formatTable(['recorded', 'transfer', 'side', 'amount', 'counterparty', 'link', 'reason/reference'], rows)}\n`,
      );
      if (page.nextCursor) printText(`(more entries: raise --limit)\n`);
    });
}
