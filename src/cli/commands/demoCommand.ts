import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { cliClient, clientConfig } from '../clientConfig.js';
import { demoClosing } from '../demo/demoClosing.js';
import { demoConfig } from '../demo/demoConfig.js';
import { demoPrinter } from '../demo/demoPrinter.js';
import { runDemo } from '../demo/runDemo.js';

export function demoCommand(program: Command) {
  program
    .command('demo')
    .description(
      'replay the story against a running server: double click, stalled request, timeout, race, redelivered webhook',
    )
    .option(
      '--write-config <file>',
      'write the demo config (built-in config plus misbehaving simulated providers) and exit',
    )
    .action(async (o: { writeConfig?: string }) => {
      if (o.writeConfig) {
        await writeFile(o.writeConfig, `${JSON.stringify(demoConfig, null, 2)}\n`);
        process.stdout.write(`wrote ${o.writeConfig}\n`);
        return;
      }
      const config = clientConfig();
      const client = cliClient(config);
      process.stdout.write(`onejob demo against ${config.url} (dashboard: ${config.url}/)\n`);
      const outcomes = await runDemo({
        client,
        baseUrl: config.url,
        token: config.token ?? '',
        print: demoPrinter(config.url),
        env: process.env,
      });
      process.stdout.write(`\n${demoClosing(outcomes, config.url)}`);
    });
}
