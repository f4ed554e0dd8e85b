// `onejob providers list` and `onejob providers verify <provider> --operation <op>`: the
// contract verification matrix of a running server and a verification run on it, through
// the HTTP API (the server's config decides which providers exist).
import type { Command } from 'commander';
import { cliClient } from '../clientConfig.js';
import { formatTable, printJson, shortTime } from '../formatTable.js';
import { printText, terminalJson } from '../terminalText.js';
import { formatReport } from './providersFormat.js';

export function providersCommand(program: Command) {
  const providers = program
    .command('providers')
    .description("a running server's providers: verification status matrix and verification runs");

  providers
    .command('list')
    .description('each provider by operation: verified, stale, failed or never')
    .option('--json', 'print the matrix as JSON')
    .action(async (opts: { json?: boolean }) => {
      const { items } = await cliClient().providers.list();
      if (opts.json) return printJson({ items });
      const rows = items.flatMap((p) =>
        p.operations.map((o) => [
          p.name,
          p.kind,
          p.model,
          o.operation,
          o.role,
          o.status,
          // A primary runs its operation verified or not; a fallback only once verified.
          o.role === 'primary' ? 'yes (primary)' : o.failoverAllowed ? 'yes' : 'no: not verified',
          shortTime(o.lastVerification?.finishedAt),
        ]),
      );
      printText(
        `${formatTable(['provider', 'kind', 'model', 'operation', 'role', 'status', 'runs it', 'last verified'], rows)}\n`,
      );
    });

  providers
    .command('verify <provider>')
    .description(
      "run the operation's contract fixtures against the provider on the server and store the result (needs the admin token: ONEJOB_ADMIN_TOKEN, else .onejob/admin-token; exit 1 when it fails)",
    )
    .requiredOption('-o, --operation <operation>', 'the operation whose contract to verify')
    .option('--json', 'print the report as JSON')
    .action(async (provider: string, opts: { operation: string; json?: boolean }) => {
      const report = await cliClient(undefined, 'admin').providers.verify(provider, opts.operation);
      const text = opts.json ? `${terminalJson(report)}\n` : formatReport(report);
      // Exit explicitly (once the output is flushed): a library's exit hook must not turn a failure into 0.
      printText(text, () => process.exit(report.passed ? 0 : 1));
    });
}
