// One embedded data folder, one server answering for it: a second `onejob serve` there is
// refused naming the owner's PID (sharing it, the first one out would stop the database
// under the other); `onejob migrate` beside the server uses the server's database and
// leaves it running; and a server whose database is killed says so once and stops.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/runCli.js';
import { spawnOnejob } from '../helpers/spawnOnejob.js';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'onejob-shared-folder-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const EMBEDDED = {
  DATABASE_URL: undefined,
  ONEJOB_API_KEYS: undefined,
  ONEJOB_CONFIG: undefined,
  ONEJOB_ADMIN_TOKEN: undefined,
  PORT: '0',
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('one server per embedded data folder', { timeout: 240_000 }, () => {
  it('a second serve is refused naming the first one’s PID; migrate beside it works; a killed database stops the server once, with exit 1', async () => {
    const cwd = join(home, 'project');
    await mkdir(cwd, { recursive: true });
    const first = spawnOnejob(['serve'], EMBEDDED, cwd);
    let postmaster = 0;
    try {
      const line = await first.waitForOutput(/API\s+http:\/\/\S+\/v1\/jobs/, 120_000);
      const base = /(http:\/\/\S+)\/v1\/jobs/.exec(line)![1]!;
      const owner = JSON.parse(await readFile(join(cwd, '.onejob', 'owner.json'), 'utf8'));
      expect(owner).toEqual({ pid: first.child.pid, command: 'onejob serve' });

      const second = spawnOnejob(['serve'], EMBEDDED, cwd);
      expect(await second.exited).toBe(2);
      expect(second.output()).toContain(
        `belongs to onejob serve (PID ${first.child.pid}), which is still running`,
      );
      expect(second.output()).not.toMatch(/adopted/);
      expect(second.output().split('\n').filter(Boolean).length).toBeLessThan(5);

      // A command beside the server uses its database and leaves it running.
      const migrate = await runCli(['migrate'], { DATABASE_URL: undefined }, cwd);
      expect(migrate.code, migrate.stderr).toBe(0);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);

      // The database dies under the server: one clear line, then the server stops (exit 1).
      postmaster = Number(
        (await readFile(join(cwd, '.onejob', 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0],
      );
      const before = first.output().length;
      process.kill(postmaster, 'SIGQUIT');
      expect(await first.exited).toBe(1);
      const after = first.output().slice(before);
      expect(after.match(/embedded PostgreSQL .* exited unexpectedly/g)).toHaveLength(1);
      expect(after).toContain('onejob cannot work without it and stops');
      // A few connection-lost lines at the moment it died, not a stream of stack traces.
      expect(after.split('\n').filter((l) => l.includes('"stack"')).length).toBeLessThan(12);
      expect(existsSync(join(cwd, '.onejob', 'owner.json'))).toBe(false);
    } finally {
      if (first.child.exitCode === null) await first.kill('SIGKILL');
      if (postmaster && alive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    }

    // The folder is free again: the next serve starts its database and answers.
    const next = spawnOnejob(['serve'], EMBEDDED, cwd);
    try {
      const line = await next.waitForOutput(/API\s+http:\/\/\S+\/v1\/jobs/, 120_000);
      expect((await fetch(`${/(http:\/\/\S+)\/v1\/jobs/.exec(line)![1]}/readyz`)).status).toBe(200);
    } finally {
      expect(await next.kill('SIGTERM')).toBe(0);
    }
  });

  it('a serve killed without stopping leaves its database to the next serve, which adopts it and stops it on the way out', async () => {
    const cwd = join(home, 'killed');
    await mkdir(cwd, { recursive: true });
    const killed = spawnOnejob(['serve'], EMBEDDED, cwd);
    await killed.waitForOutput(/API\s+http:\/\/\S+\/v1\/jobs/, 120_000);
    const postmaster = Number(
      (await readFile(join(cwd, '.onejob', 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0],
    );
    try {
      expect(await killed.kill('SIGKILL')).toBe('SIGKILL');
      expect(alive(postmaster)).toBe(true);
      const next = spawnOnejob(['serve'], EMBEDDED, cwd);
      await next.waitForOutput(/API\s+http:\/\/\S+\/v1\/jobs/, 120_000);
      expect(next.output()).toContain(`adopted embedded PostgreSQL (PID ${postmaster})`);
      expect(await next.kill('SIGTERM')).toBe(0);
      expect(next.output()).toContain('stopping embedded PostgreSQL');
      expect(alive(postmaster)).toBe(false);
    } finally {
      if (alive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    }
  });
});
