// `onejob providers list` and `onejob providers verify <provider> --operation <op>`: the
// contract verification matrix and a verification run, straight against the database
// (DATABASE_URL, else the embedded server of ./.onejob) with the service's config.
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../../config/loadConfig.js';
import { createOnejob, type Onejob } from '../../createOnejob.js';
import { migrate } from '../../db/migrate.js';
import { startEmbedded } from '../../db/startEmbedded.js';
import { isOnejobError } from '../../errors/OnejobError.js';
import { createLogger } from '../../observability/createLogger.js';
import { providerStatuses } from '../../providers/verification/providerStatus.js';
import { verifyProvider } from '../../providers/verification/verifyProvider.js';
import { formatTable, printJson, shortTime } from '../formatTable.js';
import { formatReport } from './providersFormat.js';

async function withOnejob<T>(configPath: string | undefined, fn: (onejob: Onejob) => Promise<T>): Promise<T> {
  let config: Awaited<ReturnType<typeof loadConfig>>;
  try {
    config = await loadConfig(configPath ?? process.env.ONEJOB_CONFIG);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`onejob: ${error.message}\n`);
    process.exit(2);
  }
  const embedded = process.env.DATABASE_URL ? undefined : await startEmbedded('.onejob');
  const connectionString = process.env.DATABASE_URL ?? embedded!.connectionString;
  try {
    // Verifications are stored: the table must exist even if `serve` never ran here.
    await migrate(connectionString);
    const onejob = createOnejob({
      connectionString,
      config,
      logger: createLogger(process.env.LOG_LEVEL ?? 'warn'),
    });
    try {
      return await fn(onejob);
    } finally {
      await onejob.close();
    }
  } finally {
    await embedded?.stop();
  }
}

export function providersCommand(program: Command) {
  const providers = program
    .command('providers')
    .description('provider contract verification: status matrix and verification runs');

  providers
    .command('list')
    .description('each provider by operation: verified, stale, failed or never')
    .option('-c, --config <file>', 'JSON config file (default: $ONEJOB_CONFIG, else the built-in config)')
    .option('--json', 'print the matrix as JSON')
    .action(async (opts: { config?: string; json?: boolean }) => {
      const items = await withOnejob(opts.config, providerStatuses);
      if (opts.json) return printJson({ items });
      const rows = items.flatMap((p) =>
        p.operations.map((o) => [
          p.name,
          p.kind,
          p.model,
          o.operation,
          o.role,
          o.status,
          o.failoverAllowed ? 'yes' : 'no',
          shortTime(o.lastVerification?.finishedAt),
        ]),
      );
      process.stdout.write(
        `${formatTable(['provider', 'kind', 'model', 'operation', 'role', 'status', 'failover', 'last verified'], rows)}\n`,
      );
    });

  providers
    .command('verify <provider>')
    .description(
      "run the operation's contract fixtures against the provider and store the result (exit 1 when it fails)",
    )
    .requiredOption('-o, --operation <operation>', 'the operation whose contract to verify')
    .option('-c, --config <file>', 'JSON config file (default: $ONEJOB_CONFIG, else the built-in config)')
    .option('--json', 'print the report as JSON')
    .action(async (provider: string, opts: { operation: string; config?: string; json?: boolean }) => {
      const report = await withOnejob(opts.config, async (onejob) => {
        try {
          return await verifyProvider(onejob, provider, opts.operation, { requestedBy: 'cli' });
        } catch (error) {
          if (!isOnejobError(error)) throw error;
          process.stderr.write(`onejob: ${error.code}: ${error.detail}\n`);
          return undefined;
        }
      });
      if (!report) return process.exit(2);
      const text = opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report);
      // Exit explicitly (once the output is flushed): a library's exit hook must not turn a failure into 0.
      process.stdout.write(text, () => process.exit(report.passed ? 0 : 1));
    });
}
