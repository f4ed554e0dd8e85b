// `onejob config show|check`: the configuration `serve` would run with, and every problem a
// file has, without opening a database or a port.
import type { Command } from 'commander';
import { shownConfig } from '../../config/shownConfig.js';
import { ConfigError, loadConfig } from '../../engine/loadConfig.js';
import { printJson } from '../formatTable.js';

/** Where `serve` takes its config from: the option, else $ONEJOB_CONFIG, else the built-in one. */
const configSource = (file: string | undefined) => file ?? (process.env.ONEJOB_CONFIG || undefined);

async function loaded(path: string | undefined) {
  try {
    return await loadConfig(path);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`onejob: ${error.message}\n`);
    process.exit(2);
  }
}

export function configCommand(program: Command) {
  const config = program
    .command('config')
    .description('the configuration serve runs with, and what is wrong with a config file');

  config
    .command('show')
    .description(
      'print the configuration in use (--config, else $ONEJOB_CONFIG, else built-in) as JSON; secrets appear as the variables that hold them',
    )
    .option('-c, --config <file>', 'JSON config file (default: $ONEJOB_CONFIG, else the built-in config)')
    .action(async (opts: { config?: string }) => {
      const path = configSource(opts.config);
      const shown = shownConfig(await loaded(path));
      // The source goes to stderr, so stdout is a config file one can start from.
      process.stderr.write(`onejob: ${path ? `config from ${path}` : 'built-in config'}\n`);
      printJson(shown);
    });

  config
    .command('check <file>')
    .description(
      'validate a config file as serve does (shape, references, providers, publishers, inbox secrets) and list every problem at once; starts nothing',
    )
    .action(async (file: string) => {
      await loaded(file);
      process.stdout.write(`${file}: ok\n`);
    });
}
