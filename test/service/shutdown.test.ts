import { execFileSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../src/db/embeddedOwner.js';
import { apiBase, EMBEDDED_SERVE_ENV, embeddedPostmasterPid, spawnOnejob } from '../helpers/spawnOnejob.js';
import { tempFolderPerFile } from '../helpers/tempFolder.js';

const home = tempFolderPerFile('onejob-shutdown-');

const pgidOf = (pid: number) =>
  Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }));

describe('Ctrl-C on onejob serve', { timeout: 180_000 }, () => {
  it('SIGINT to the terminal process group drains, closes the pools, stops PostgreSQL last, and prints a few lines', async () => {
    const cwd = join(home(), 'project');
    await mkdir(cwd, { recursive: true });
    // As in a terminal: the command leads its own process group and Ctrl-C signals the whole group.
    const serve = spawnOnejob(['serve'], { ...EMBEDDED_SERVE_ENV, HOME: home() }, cwd, { detached: true });
    let postmaster = 0;
    try {
      const base = await apiBase(serve);
      const token = (await readFile(join(cwd, '.onejob', 'api-key'), 'utf8')).trim();
      postmaster = await embeddedPostmasterPid(cwd);
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
      expect(isAlive(postmaster)).toBe(false);
    } finally {
      if (serve.child.exitCode === null) process.kill(-serve.child.pid!, 'SIGKILL');
      if (postmaster && isAlive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    }
  });
});
