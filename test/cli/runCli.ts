// Runs the `onejob` CLI from source and collects stdout, stderr and the exit code.
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
// Resolved here, so the CLI can run from any working directory (the dev token file is looked up there).
const TSX = import.meta.resolve('tsx');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  cwd = ROOT,
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', TSX, MAIN, ...args],
      {
        cwd,
        env: { ...process.env, ONEJOB_TOKEN: undefined, ONEJOB_URL: undefined, ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
