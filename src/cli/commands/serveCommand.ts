import { relative } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../config/loadConfig.js';
import { ROLES, type Role, StartupError, startService } from '../serve/startService.js';

function parseRoles(value: string): Role[] {
  const roles = value
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const role of roles) {
    if (!ROLES.includes(role as Role)) throw new Error(`--role: "${role}" is not one of ${ROLES.join(', ')}`);
  }
  if (roles.length === 0) throw new Error('--role: name at least one role');
  return roles as Role[];
}

const FORCE_EXIT_MS = 15_000;

export function serveCommand(program: Command) {
  program
    .command('serve')
    .description('run the HTTP API, the attempt worker and the outbox relay (all three by default)')
    .option('-c, --config <file>', 'JSON config file (default: $ONEJOB_CONFIG, else the built-in config)')
    .option('-r, --role <roles>', 'comma-separated roles: api, worker, relay', 'api,worker,relay')
    .action(async (opts: { config?: string; role: string }) => {
      let service: Awaited<ReturnType<typeof startService>>;
      try {
        service = await startService({ configPath: opts.config, roles: parseRoles(opts.role) });
      } catch (error) {
        if (error instanceof ConfigError || error instanceof StartupError) {
          process.stderr.write(`onejob: ${error.message}\n`);
          process.exit(2);
        }
        throw error;
      }
      const lines = [`onejob is running (roles: ${opts.role})`];
      if (service.url) {
        lines.push(`  API        ${service.url}/v1/jobs`);
        lines.push(`  Dashboard  ${service.url}/`);
        lines.push(`  OpenAPI    ${service.url}/openapi.json`);
        lines.push(`  Metrics    ${service.url}/metrics`);
        lines.push(`  Health     ${service.url}/healthz (live)  ${service.url}/readyz (ready)`);
      }
      lines.push(
        `  Config     ${service.configSource === 'built-in' ? 'built-in' : service.configSource}   (npx onejob config show prints it)`,
      );
      if (service.url) {
        const models = Object.keys(service.onejob.config.compat?.models ?? {});
        lines.push(
          models.length
            ? `  Compat     ${models.join(', ')} at ${service.url}/compat/openai/v1 and ${service.url}/compat/anthropic`
            : '  Compat     no models (compat.models in the config; see docs/compat.md)',
        );
      }
      lines.push(
        service.embedded
          ? `  Database   embedded PostgreSQL, data in ${service.embedded.dataDir}`
          : '  Database   $DATABASE_URL',
      );
      if (service.devToken)
        lines.push(`  Token      ${service.devToken}   (owner "dev", kept in .onejob/api-key)`);
      if (service.adminTokenFile)
        lines.push(
          `  Admin      token kept in ${relative(process.cwd(), service.adminTokenFile)}   (operator commands read it there; paste it in the dashboard for Verify and Replay)`,
        );
      if (service.devToken) {
        if (service.url) {
          lines.push('');
          lines.push('Try it:');
          lines.push(
            `  curl -s -X POST ${service.url}/v1/jobs -H "Authorization: Bearer $(cat .onejob/api-key)" \\`,
          );
          lines.push(`       -H 'Idempotency-Key: order-42' -H 'Content-Type: application/json' \\`);
          lines.push(`       -d '{"operation":"charge","input":{"amount":1999}}'`);
        }
      }
      // The embedded PostgreSQL runs in a process group of its own, so a terminal's Ctrl-C
      // reaches only this process, which stops it last. One line per phase on stderr.
      const say = (line: string) => process.stderr.write(`onejob: ${line}\n`);
      let stopping = false;
      const shutdown = (signal: string, exitCode = 0) => {
        if (stopping)
          return say(`${signal} again: still stopping (forced exit after ${FORCE_EXIT_MS / 1000} s)`);
        stopping = true;
        if (signal.startsWith('SIG'))
          say(`${signal}: taking no new requests or claims; draining in-flight requests and attempts`);
        const force = setTimeout(() => {
          say(`not stopped after ${FORCE_EXIT_MS / 1000} s; exiting`);
          process.exit(1);
        }, FORCE_EXIT_MS);
        force.unref();
        service.stop(say).then(
          () => process.exit(exitCode),
          (error: unknown) => {
            say(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
            process.exit(1);
          },
        );
      };
      // Before the banner: whoever waits for it may signal at once, and a signal with no
      // listener yet would end the process with its default action, skipping the drain.
      process.on('SIGINT', () => shutdown('SIGINT'));
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.stdout.write(lines.join('\n') + '\n');
      watchLauncher(() => shutdown('parent gone'), say);
      // Without its database the service can only fail every request and every poll: say
      // so once and stop (exit 1), so a supervisor restarts the whole, instead of logging
      // the same connection error many times a second.
      void service.embedded?.lost.then((what) => {
        if (stopping) return;
        say(`embedded PostgreSQL ${what}; onejob cannot work without it and stops`);
        shutdown('database lost', 1);
      });
    });
}

/**
 * Under `npm start` (or npx) the server is npm's grandchild, through a shell. `kill <npm>`
 * takes npm and the shell away but not the server, which would go on serving the port
 * with its PostgreSQL, an orphan. When the process that started it is gone (this process
 * was handed to another parent), it stops as on SIGTERM. Only under npm: a server started
 * directly (`node bin/onejob.js serve`, a supervisor, `nohup`) keeps running as told.
 */
function watchLauncher(stop: () => void, say: (line: string) => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    say(
      `the process that started this one (PID ${parent}, npm ${process.env.npm_lifecycle_event}) is gone; stopping`,
    );
    stop();
  }, PARENT_POLL_MS);
  watch.unref();
}

const PARENT_POLL_MS = 1_000;
