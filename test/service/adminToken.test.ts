// With the embedded default, an operator can act after a plain `onejob serve`: an admin
// token is generated once, kept beside the development token with the same permissions,
// named in the banner and read by the CLI's operator commands. A set ONEJOB_ADMIN_TOKEN wins.
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/runCli.js';
import { apiBase, EMBEDDED_SERVE_ENV, spawnOnejob } from '../helpers/spawnOnejob.js';
import { tempFolderPerFile } from '../helpers/tempFolder.js';

const home = tempFolderPerFile('onejob-admin-token-');

async function serve(cwd: string, env: Record<string, string | undefined> = {}) {
  const server = spawnOnejob(['serve'], { ...EMBEDDED_SERVE_ENV, ...env }, cwd);
  const base = await apiBase(server);
  // The Database line follows the addresses and precedes the tokens; Try it: ends the banner.
  await server.waitForOutput(/^Try it:/);
  return { server, base };
}

const backlog = (base: string, token: string) =>
  fetch(`${base}/v1/outbox/backlog`, { headers: { authorization: `Bearer ${token}` } });

describe('the admin token of the embedded default', { timeout: 240_000 }, () => {
  it('is generated once beside the development token, named in the banner, and opens the operator commands from that folder', async () => {
    const cwd = join(home(), 'project');
    await mkdir(cwd, { recursive: true });
    const { server, base } = await serve(cwd);
    let first: string;
    try {
      const file = join(cwd, '.onejob', 'admin-token');
      first = (await readFile(file, 'utf8')).trim();
      expect(first.length).toBeGreaterThanOrEqual(16);
      const devToken = (await readFile(join(cwd, '.onejob', 'api-key'), 'utf8')).trim();
      expect(first).not.toBe(devToken);
      // The same permissions as the development token: the owner's only.
      const mode = async (f: string) => (await stat(f)).mode & 0o777;
      expect(await mode(file)).toBe(0o600);
      expect(await mode(file)).toBe(await mode(join(cwd, '.onejob', 'api-key')));
      // The banner says where it is, never the secret itself.
      const banner = server.output();
      expect(banner).toMatch(/^ {2}Admin\s+token kept in \.onejob\/admin-token/m);
      expect(banner).not.toContain(first);

      expect((await backlog(base, first)).status).toBe(200);
      expect((await backlog(base, devToken)).status).toBe(403);
      // An operator command from that folder, with no ONEJOB_ADMIN_TOKEN set.
      const cli = await runCli(
        ['outbox', 'backlog'],
        { ONEJOB_URL: base, ONEJOB_ADMIN_TOKEN: undefined },
        cwd,
      );
      expect(cli.stderr).toBe('');
      expect(cli.code).toBe(0);
    } finally {
      expect(await server.kill('SIGTERM')).toBe(0);
    }

    // A restart keeps the token.
    const again = await serve(cwd);
    try {
      expect((await readFile(join(cwd, '.onejob', 'admin-token'), 'utf8')).trim()).toBe(first);
      expect((await backlog(again.base, first)).status).toBe(200);
    } finally {
      expect(await again.server.kill('SIGTERM')).toBe(0);
    }

    // A set ONEJOB_ADMIN_TOKEN wins: the stored one no longer opens anything.
    const chosen = 'chosen-admin-token-0123456789';
    const explicit = await serve(cwd, { ONEJOB_ADMIN_TOKEN: chosen });
    try {
      expect(explicit.server.output()).not.toMatch(/^ {2}Admin /m);
      expect((await backlog(explicit.base, chosen)).status).toBe(200);
      expect((await backlog(explicit.base, first)).status).toBe(403);
      const cli = await runCli(
        ['outbox', 'backlog'],
        { ONEJOB_URL: explicit.base, ONEJOB_ADMIN_TOKEN: chosen },
        cwd,
      );
      expect(cli.code).toBe(0);
    } finally {
      expect(await explicit.server.kill('SIGTERM')).toBe(0);
    }
  });

  it('an operator command outside that folder, without ONEJOB_ADMIN_TOKEN, says where the token is kept', async () => {
    const empty = join(home(), 'elsewhere');
    await mkdir(empty, { recursive: true });
    const cli = await runCli(
      ['outbox', 'backlog'],
      { ONEJOB_URL: 'http://127.0.0.1:9', ONEJOB_TOKEN: 'x', ONEJOB_ADMIN_TOKEN: undefined },
      empty,
    );
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('ONEJOB_ADMIN_TOKEN');
    expect(cli.stderr).toContain('.onejob/admin-token');
  });
});
