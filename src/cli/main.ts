import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { archiveCommand } from './commands/archiveCommand.js';
import { benchCommand } from './commands/benchCommand.js';
import { inboxCommand } from './commands/inboxCommand.js';
import { demoCommand } from './commands/demoCommand.js';
import { jobsCommand } from './commands/jobsCommand.js';
import { ledgerCommand } from './commands/ledgerCommand.js';
import { migrateCommand } from './commands/migrateCommand.js';
import { outboxCommand } from './commands/outboxCommand.js';
import { providersCommand } from './commands/providersCommand.js';
import { serveCommand } from './commands/serveCommand.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export function buildProgram(): Command {
  const program = new Command('onejob')
    .description('One durable job per user intent, on PostgreSQL.')
    .version(pkg.version);
  serveCommand(program);
  migrateCommand(program);
  archiveCommand(program);
  jobsCommand(program);
  demoCommand(program);
  benchCommand(program);
  ledgerCommand(program);
  inboxCommand(program);
  outboxCommand(program);
  providersCommand(program);
  return program;
}

buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(`onejob: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
