// The CLI from any folder: installed from the clone with `npm install -g <clone>` (a link to
// the clone's built dist/, no build and no download), it talks to a server through
// ONEJOB_URL and the tokens, from an empty folder. And `prepare` leaves a current dist/
// alone: the first `npx onejob` in a clone must not rebuild under a running server.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIsCurrent, inputsHash, STAMP } from '../../scripts/build.mjs';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/startTestApp.js';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

let t: TestApp;
let home: string;
beforeAll(async () => {
  t = await startTestApp();
  home = await mkdtemp(join(tmpdir(), 'onejob-cli-outside-'));
});
afterAll(async () => {
  await t?.close();
  await rm(home, { recursive: true, force: true });
});

/** Runs a program with a clean onejob environment; never throws, answers code and output. */
async function exec(file: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('ONEJOB_') && !k.startsWith('npm_')) base[k] = v;
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env: { ...base, ...env }, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('the CLI outside the clone', { timeout: 180_000 }, () => {
  it('installed with npm install -g <clone> into a prefix, it runs an operator command from an empty folder', async () => {
    const prefix = join(home, 'prefix');
    const empty = join(home, 'empty');
    mkdirSync(empty, { recursive: true });
    const install = await exec(
      'npm',
      ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', ROOT],
      empty,
    );
    expect(install.code, install.stderr).toBe(0);
    const onejob = join(prefix, 'bin', 'onejob');

    const help = await exec(onejob, ['--help'], empty);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: onejob');

    const backlog = await exec(onejob, ['outbox', 'backlog', '--json'], empty, {
      ONEJOB_URL: t.url,
      ONEJOB_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    expect(backlog.stderr).toBe('');
    expect(backlog.code).toBe(0);
    expect(Array.isArray(JSON.parse(backlog.stdout))).toBe(true);

    // Without a token and with no .onejob/ folder here, it says what to set.
    const refused = await exec(onejob, ['outbox', 'backlog'], empty, { ONEJOB_URL: t.url });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('ONEJOB_ADMIN_TOKEN');
  });

  it('prepare leaves a dist/ built from the current inputs alone, and says so', async () => {
    const tree = join(home, 'tree');
    mkdirSync(join(tree, 'scripts'), { recursive: true });
    mkdirSync(join(tree, 'src'), { recursive: true });
    mkdirSync(join(tree, 'dist', 'cli'), { recursive: true });
    cpSync(join(ROOT, 'scripts', 'build.mjs'), join(tree, 'scripts', 'build.mjs'));
    writeFileSync(join(tree, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(tree, 'dist', 'cli', 'main.js'), '// built\n');
    expect(buildIsCurrent(tree)).toBe(false); // never built: no stamp
    writeFileSync(join(tree, STAMP), `${inputsHash(tree)}\n`);
    expect(buildIsCurrent(tree)).toBe(true);

    const prepare = await exec(process.execPath, [join(tree, 'scripts', 'build.mjs'), '--if-changed'], tree);
    expect(prepare.code).toBe(0);
    expect(prepare.stderr).toContain('dist/ is up to date with src/; not rebuilding it');

    // Any change to an input makes it out of date again.
    writeFileSync(join(tree, 'src', 'a.ts'), 'export const a = 2;\n');
    expect(buildIsCurrent(tree)).toBe(false);
  });
});
