import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnOnejob } from '../helpers/spawnOnejob.js';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'onejob-shutdown-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const pgidOf = (pid: number) =>
  Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }));

describe('Ctrl-C on onejob serve', { timeout: 180_000 }, () => {
  it('SIGINT to the terminal process group drains, closes the pools, stops PostgreSQL last, and prints a few lines', async () => {
    const cwd = join(home, 'project');
    await mkdir(cwd, { recursive: true });
    // As in a terminal: the command leads its own process group and Ctrl-C signals the whole group.
    const serve = spawnOnejob(
      ['serve'],
      {
        HOME: home,
        DATABASE_URL: undefined,
        ONEJOB_API_KEYS: undefined,
        ONEJOB_CONFIG: undefined,
        ONEJOB_ADMIN_TOKEN: undefined,
        PORT: '0',
      },
      cwd,
      { detached: true },
    );
    let postmaster = 0;
    try {
      const line = await serve.waitForOutput(/API\s+http:\/\/\S+\/v1\/jobs/, 120_000);
      const base = /(http:\/\/\S+)\/v1\/jobs/.exec(line)![1]!;
      const token = (await readFile(join(cwd, '.onejob', 'api-key'), 'utf8')).trim();
      postmaster = Number(
        (await readFile(join(cwd, '.onejob', 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0],
      );
      expect(pgidOf(postmaster)).not.toBe(serve.child.pid);

      // Work in flight: the worker and the relay use their pools when the signal arrives.
      const created = await fetch(`${base}/v1/jobs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'idempotency-key': 'before-ctrl-c',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ operation: 'charge', input: { amount: 1 } }),
      });
      expect(created.status).toBe(202);

      const before = serve.output().length;
      process.kill(-serve.child.pid!, 'SIGINT');
      expect(await serve.exited).toBe(0);
      const after = serve.output().slice(before);

      expect(Buffer.byteLength(after)).toBeLessThan(4096);
      expect(after).not.toMatch(/ECONNREFUSED|terminating connection|Connection terminated/);
      // Nothing went wrong, so nothing is logged as a warning or an error.
      expect(after).not.toMatch(/"level":(40|50|60)/);
      const phases = [
        /onejob: SIGINT: taking no new requests or claims/,
        /onejob: drained in \d+ ms; closing database pools/,
        /onejob: pools closed; stopping embedded PostgreSQL/,
        /onejob: stopped/,
      ];
      const at = phases.map((p) => after.search(p));
      expect(
        at.every((i) => i >= 0),
        after,
      ).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
      expect(alive(postmaster)).toBe(false);
    } finally {
      if (serve.child.exitCode === null) process.kill(-serve.child.pid!, 'SIGKILL');
      if (postmaster && alive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    }
  });
});
