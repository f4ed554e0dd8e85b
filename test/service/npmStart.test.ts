// `npm start` runs the server as npm's grandchild, through a shell. These tests run that
// real process tree in a project folder: killing npm alone must not leave the server and
// its PostgreSQL running as orphans, and Ctrl-C (SIGINT to the whole process group, as a
// terminal sends it) stops the server cleanly while npm reports the signal itself.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../src/db/embeddedOwner.js';
import {
  apiBase,
  EMBEDDED_SERVE_ENV,
  embeddedPostmasterPid,
  type SpawnedOnejob,
  spawnWatched,
} from '../helpers/spawnOnejob.js';
import { tempFolderPerFile } from '../helpers/tempFolder.js';
import { until } from '../helpers/until.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TSX = import.meta.resolve('tsx');

const project = tempFolderPerFile('onejob-npm-start-');
beforeAll(async () => {
  // The project's start script, as the package's own: `onejob serve`, here from source.
  const start = `node --import ${TSX} ${join(ROOT, 'src', 'cli', 'main.ts')} serve`;
  await writeFile(
    join(project(), 'package.json'),
    JSON.stringify({ name: 'shop', private: true, scripts: { start } }),
  );
});

/** `npm start` in a process group of its own, as a terminal runs a foreground command. */
const npmStart = () => spawnWatched('npm', ['start'], EMBEDDED_SERVE_ENV, project(), { detached: true });

async function started(run: SpawnedOnejob) {
  const base = await apiBase(run);
  const owner = JSON.parse(await readFile(join(project(), '.onejob', 'owner.json'), 'utf8')) as {
    pid: number;
  };
  return { base, server: owner.pid, postmaster: await embeddedPostmasterPid(project()) };
}

describe('onejob under npm start', { timeout: 240_000 }, () => {
  it('killing npm alone stops the server and its embedded PostgreSQL: nothing is left serving the port', async () => {
    const run = npmStart();
    const { base, server, postmaster } = await started(run);
    try {
      expect(server).not.toBe(run.child.pid);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      process.kill(run.child.pid!, 'SIGTERM'); // `kill $!` after `npm start &`
      await run.exited;
      await until('the server to stop', async () => !isAlive(server) && !isAlive(postmaster), 60_000);
      expect(run.output()).toMatch(
        /onejob: the process that started this one \(PID \d+, npm start\) is gone; stopping/,
      );
      expect(run.output()).toContain('onejob: stopped');
      await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    } finally {
      if (isAlive(server)) process.kill(server, 'SIGKILL');
      if (isAlive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    }
  });

  it('Ctrl-C stops the server in its phases; npm itself ends on the signal (a shell shows 130)', async () => {
    const run = npmStart();
    const { server, postmaster } = await started(run);
    try {
      process.kill(-run.child.pid!, 'SIGINT');
      // npm re-raises the signal on itself: `$?` in a shell is 128 + 2.
      expect(await run.exited).toBe('SIGINT');
      await until('the server to stop', async () => !isAlive(server) && !isAlive(postmaster), 60_000);
      const out = run.output();
      expect(out).toContain('onejob: SIGINT: taking no new requests or claims');
      expect(out).toContain('onejob: stopped');
      expect(out).not.toMatch(/is gone; stopping/);
    } finally {
      if (isAlive(server)) process.kill(server, 'SIGKILL');
      if (isAlive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    }
  });
});
