import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';

// The harness lives in bench/ of the source tree (it needs the dev dependencies: tsx,
// pg-boss, graphile-worker), so this command runs it as `npm run bench` does.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RUN = `${ROOT}bench/run.ts`;

export function benchCommand(program: Command) {
  program
    .command('bench')
    .description(
      'benchmark onejob against the raw PostgreSQL limit, pg-boss and graphile-worker (bench --help for options)',
    )
    .argument('[options...]', 'passed to the harness, see onejob bench --help')
    .allowUnknownOption()
    .helpOption(false)
    .action((args: string[]) => {
      if (!existsSync(RUN)) {
        process.stderr.write(
          'onejob: the benchmark harness ships with the source repository; run it from a clone with dev dependencies installed\n',
        );
        process.exit(2);
      }
      const child = spawn(process.execPath, ['--import', 'tsx', RUN, ...args], {
        cwd: ROOT,
        env: { ...process.env, ONEJOB_BENCH_COMMAND: 'onejob bench' },
        stdio: 'inherit',
      });
      child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
    });
}
