// One embedded data folder, one server answering for it: a second `onejob serve` there is
// refused naming the owner's PID (sharing it, the first one out would stop the database
// under the other); `onejob migrate` beside the server uses the server's database and
// leaves it running; and a server whose database is killed says so once and stops.
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../src/db/embeddedOwner.js';
import { runCli } from '../cli/runCli.js';
import { apiBase, EMBEDDED_SERVE_ENV, embeddedPostmasterPid, spawnOnejob } from '../helpers/spawnOnejob.js';
import { tempFolderPerFile } from '../helpers/tempFolder.js';

const home = tempFolderPerFile('onejob-shared-folder-');

describe('one server per embedded data folder', { timeout: 240_000 }, () => {
  it('a second serve is refused naming the first one’s PID; migrate beside it works; a killed database stops the server once, with exit 1', async () => {
    const cwd = join(home(), 'project');
    await mkdir(cwd, { recursive: true });
    const first = spawnOnejob(['serve'], EMBEDDED_SERVE_ENV, cwd);
    let postmaster = 0;
    try {
      const base = await apiBase(first);
      const owner = JSON.parse(await readFile(join(cwd, '.onejob', 'owner.json'), 'utf8'));
      expect(owner).toEqual({ pid: first.child.pid, command: 'onejob serve' });

      const second = spawnOnejob(['serve'], EMBEDDED_SERVE_ENV, cwd);
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
      postmaster = await embeddedPostmasterPid(cwd);
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
      if (postmaster && isAlive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    }

    // The folder is free again: the next serve starts its database and answers.
    const next = spawnOnejob(['serve'], EMBEDDED_SERVE_ENV, cwd);
    try {
      expect((await fetch(`${await apiBase(next)}/readyz`)).status).toBe(200);
    } finally {
      expect(await next.kill('SIGTERM')).toBe(0);
    }
  });

  it('a serve killed without stopping leaves its database to the next serve, which adopts it and stops it on the way out', async () => {
    const cwd = join(home(), 'killed');
    await mkdir(cwd, { recursive: true });
    const killed = spawnOnejob(['serve'], EMBEDDED_SERVE_ENV, cwd);
    await apiBase(killed);
    const postmaster = await embeddedPostmasterPid(cwd);
    try {
      expect(await killed.kill('SIGKILL')).toBe('SIGKILL');
      expect(isAlive(postmaster)).toBe(true);
      const next = spawnOnejob(['serve'], EMBEDDED_SERVE_ENV, cwd);
      await apiBase(next);
      expect(next.output()).toContain(`adopted embedded PostgreSQL (PID ${postmaster})`);
      expect(await next.kill('SIGTERM')).toBe(0);
      expect(next.output()).toContain('stopping embedded PostgreSQL');
      expect(isAlive(postmaster)).toBe(false);
    } finally {
      if (isAlive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    }
  });
});
