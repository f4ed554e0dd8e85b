import { readFileSync } from 'node:fs';
import { Command, Help, type Option } from 'commander';
import { isOnejobClientError } from '../client/index.js';
import { CliConfigError, clientConfig, HOW_TO_CONNECT } from './clientConfig.js';
import { archiveCommand } from './commands/archiveCommand.js';
import { benchCommand } from './commands/benchCommand.js';
import { budgetsCommand } from './commands/budgetsCommand.js';
import { configCommand } from './commands/configCommand.js';
import { demoCommand } from './commands/demoCommand.js';
import { inboxCommand } from './commands/inboxCommand.js';
import { jobsCommand } from './commands/jobsCommand.js';
import { ledgerCommand } from './commands/ledgerCommand.js';
import { migrateCommand } from './commands/migrateCommand.js';
import { outboxCommand } from './commands/outboxCommand.js';
import { providersCommand } from './commands/providersCommand.js';
import { serveCommand } from './commands/serveCommand.js';
import { safeLines } from './terminalText.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

// Commander enforces `requiredOption` but its help lists them like any other option.
const help = new Help();
const optionDescription = (option: Option) =>
  `${option.mandatory ? '(required) ' : ''}${help.optionDescription(option)}`;

export function buildProgram(): Command {
  const program = new Command('onejob')
    .description('One durable job per user intent, on PostgreSQL.')
    .version(pkg.version)
    // Inherited by every command added below.
    .configureHelp({ optionDescription })
    .addHelpText(
      'after',
      '\nOnly serve, migrate and archive use the database, and config reads files alone; every other\ncommand talks to a running server: ONEJOB_URL, ONEJOB_TOKEN, ONEJOB_ADMIN_TOKEN, else\n.onejob/api-key and .onejob/admin-token in this folder.',
    );
  serveCommand(program);
  migrateCommand(program);
  archiveCommand(program);
  jobsCommand(program);
  demoCommand(program);
  benchCommand(program);
  ledgerCommand(program);
  budgetsCommand(program);
  inboxCommand(program);
  outboxCommand(program);
  providersCommand(program);
  configCommand(program);
  return program;
}

buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    // A server's problem detail may quote what a tenant sent.
    process.stderr.write(`onejob: ${safeLines(error instanceof Error ? error.message : String(error))}\n`);
    // Nothing answered at the default address: say how to name the server.
    if (isOnejobClientError(error, 'network_error') && clientConfig().urlSource === 'default')
      process.stderr.write(`\n${HOW_TO_CONNECT}\n`);
    process.exit(error instanceof CliConfigError ? 2 : 1);
  });
