// Runs the `onejob` CLI from source and collects stdout, stderr and the exit code.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Command } from 'commander';
import { vi } from 'vitest';

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

/**
 * Runs CLI commands in-process against a server, as `token`'s owner, returning what they
 * printed (a child per command costs seconds). `commands` registers the ones it may run.
 */
export async function runCliInProcess(
  server: { url: string; token: string },
  commands: ((program: Command) => void)[],
  args: string[],
): Promise<string> {
  const saved = { url: process.env.ONEJOB_URL, token: process.env.ONEJOB_TOKEN };
  process.env.ONEJOB_URL = server.url;
  process.env.ONEJOB_TOKEN = server.token;
  let out = '';
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += chunk.toString();
    return true;
  });
  try {
    const program = new Command('onejob').exitOverride();
    for (const register of commands) register(program);
    await program.parseAsync(args, { from: 'user' });
  } finally {
    write.mockRestore();
    for (const [key, value] of [
      ['ONEJOB_URL', saved.url],
      ['ONEJOB_TOKEN', saved.token],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  return out;
}
