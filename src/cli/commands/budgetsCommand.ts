// `onejob budgets set|show`: spending limits per owner, currency and UTC period, through the
// HTTP API. Setting and reading another owner's budget needs the admin token
// (ONEJOB_ADMIN_TOKEN, else .onejob/admin-token); `show` without arguments reads the
// token owner's own.
import type { Command } from 'commander';
import type { Budget } from '../../client/index.js';
import { CliConfigError, cliClient } from '../clientConfig.js';
import { formatTable, printJson } from '../formatTable.js';
import { printText } from '../terminalText.js';

const PERIODS = ['total', 'day', 'month'] as const;

function printBudgets(items: Budget[]) {
  printText(
    `${formatTable(
      ['owner', 'currency', 'period', 'since', 'limit', 'spent', 'held', 'available'],
      items.map((b) => [
        b.ownerId,
        b.currency,
        b.period,
        b.periodStart,
        b.limitMicros,
        b.spentMicros,
        b.heldMicros,
        b.availableMicros,
      ]),
    )}\n`,
  );
  printText('amounts in micros (millionths of the currency unit)\n');
}

export function budgetsCommand(program: Command) {
  const budgets = program
    .command('budgets')
    .description(
      'spending limits per owner and currency: spent + held never passes the limit in a UTC period (see docs/budgets.md)',
    );

  budgets
    .command('set <ownerId> <currency>')
    .description(
      "set or change an owner's budget in a currency, at once (needs the admin token: ONEJOB_ADMIN_TOKEN, else .onejob/admin-token)",
    )
    .requiredOption(
      '--limit-micros <n>',
      'the limit in millionths of the currency unit (0 refuses every priced call)',
    )
    .requiredOption('--period <period>', `${PERIODS.join(' | ')}: UTC periods; total never resets`)
    .option('--json', 'print the JSON document instead of text')
    .action(
      async (
        ownerId: string,
        currency: string,
        opts: { limitMicros: string; period: string; json?: boolean },
      ) => {
        // Checked here too so a typo is named before anything is sent; the server checks again.
        if (!/^\d+$/.test(opts.limitMicros))
          throw new CliConfigError(
            `--limit-micros must be a whole number of micros, got ${opts.limitMicros}`,
          );
        if (!(PERIODS as readonly string[]).includes(opts.period))
          throw new CliConfigError(`--period must be one of ${PERIODS.join(', ')}, got ${opts.period}`);
        const budget = await cliClient(undefined, 'admin').budgets.set(ownerId, currency, {
          limitMicros: Number(opts.limitMicros),
          period: opts.period as (typeof PERIODS)[number],
        });
        if (opts.json) return printJson(budget);
        printBudgets([budget]);
      },
    );

  budgets
    .command('show [ownerId] [currency]')
    .description(
      "without arguments, the token owner's budgets; with an owner and a currency, that budget (needs the admin token)",
    )
    .option('--json', 'print the JSON document instead of text')
    .action(async (ownerId: string | undefined, currency: string | undefined, opts: { json?: boolean }) => {
      if (ownerId !== undefined && currency === undefined)
        throw new CliConfigError('give both <ownerId> and <currency>, or neither for your own budgets');
      if (ownerId !== undefined && currency !== undefined) {
        const budget = await cliClient(undefined, 'admin').budgets.get(ownerId, currency);
        if (opts.json) return printJson(budget);
        return printBudgets([budget]);
      }
      const list = await cliClient().budgets.mine();
      if (opts.json) return printJson(list);
      if (list.items.length === 0) return printText('No budget: spending is not limited.\n');
      printBudgets(list.items);
    });
}
