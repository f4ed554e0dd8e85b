// `npm start` runs the server as npm's grandchild, through a shell. These tests run that
// real process tree in a project folder: killing npm alone must not leave the server and
// its PostgreSQL running as orphans, and Ctrl-C (SIGINT to the whole process group, as a
// terminal sends it) stops the server cleanly while npm reports the signal itself.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/until.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TSX = import.meta.resolve('tsx');

let project: string;
beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'onejob-npm-start-'));
  await mkdir(project, { recursive: true });
  // The project's start script, as the package's own: `onejob serve`, here from source.
  const start = `node --import ${TSX} ${join(ROOT, 'src', 'cli', 'main.ts')} serve`;
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'shop', private: true, scripts: { start } }),
  );
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `npm start` in a process group of its own, as a terminal runs a foreground command. */
function npmStart() {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    ...process.env,
    PORT: '0',
    LOG_LEVEL: 'info',
    DATABASE_URL: undefined,
    ONEJOB_API_KEYS: undefined,
    ONEJOB_CONFIG: undefined,
    ONEJOB_ADMIN_TOKEN: undefined,
  }))
    if (v !== undefined) env[k] = v;
  const npm: ChildProcess = spawn('npm', ['start'], {
    cwd: project,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  npm.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | string>((resolve) =>
    npm.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return { npm, exited, output: () => out };
}

async function started(run: ReturnType<typeof npmStart>) {
  const line = await until(
    'the banner',
    async () => /API\s+(http:\/\/\S+)\/v1\/jobs/.exec(run.output()) ?? undefined,
    120_000,
  );
  const owner = JSON.parse(await readFile(join(project, '.onejob', 'owner.json'), 'utf8')) as { pid: number };
  const postmaster = Number(
    (await readFile(join(project, '.onejob', 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0],
  );
  return { base: line[1]!, server: owner.pid, postmaster };
}

describe('onejob under npm start', { timeout: 240_000 }, () => {
  it('killing npm alone stops the server and its embedded PostgreSQL: nothing is left serving the port', async () => {
    const run = npmStart();
    const { base, server, postmaster } = await started(run);
    try {
      expect(server).not.toBe(run.npm.pid);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      process.kill(run.npm.pid!, 'SIGTERM'); // `kill $!` after `npm start &`
      await run.exited;
      await until('the server to stop', async () => !alive(server) && !alive(postmaster), 60_000);
      expect(run.output()).toMatch(
        /onejob: the process that started this one \(PID \d+, npm start\) is gone; stopping/,
      );
      expect(run.output()).toContain('onejob: stopped');
      await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    } finally {
      if (alive(server)) process.kill(server, 'SIGKILL');
      if (alive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    }
  });

  it('Ctrl-C stops the server in its phases; npm itself ends on the signal (a shell shows 130)', async () => {
    const run = npmStart();
    const { server, postmaster } = await started(run);
    try {
      process.kill(-run.npm.pid!, 'SIGINT');
      // npm re-raises the signal on itself: `$?` in a shell is 128 + 2.
      expect(await run.exited).toBe('SIGINT');
      await until('the server to stop', async () => !alive(server) && !alive(postmaster), 60_000);
      const out = run.output();
      expect(out).toContain('onejob: SIGINT: taking no new requests or claims');
      expect(out).toContain('onejob: stopped');
      expect(out).not.toMatch(/is gone; stopping/);
    } finally {
      if (alive(server)) process.kill(server, 'SIGKILL');
      if (alive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    }
  });
});
