import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import { runCli } from './runCli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'onejob-config-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Nothing to connect to: these commands read files and the environment alone.
const isolated = { HOME: '/nonexistent', DATABASE_URL: undefined, ONEJOB_CONFIG: undefined };

const withSecrets = {
  providers: {
    pay: { kind: 'http', url: 'https://pay.example/charge', headers: { authorization: 'Bearer sk_live_1' } },
  },
  operations: { charge: { kind: 'http', providers: ['pay'], effect: 'exclusive' } },
  outbox: {
    publishers: [
      { kind: 'nats', url: 'nats://relay:hunter2@127.0.0.1:4222' },
      { kind: 'webhook', url: 'https://hooks.example/in?token=abc', secretEnv: 'HOOK_SECRET' },
    ],
  },
};
const hookSecret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;

describe('onejob config', { timeout: 120_000 }, () => {
  it('config show prints the built-in config with no file named, and the file in ONEJOB_CONFIG otherwise, secrets as the variables that hold them', async () => {
    const file = join(dir, 'secrets.json');
    await writeFile(file, JSON.stringify(withSecrets));
    const [builtIn, fromEnv] = await Promise.all([
      runCli(['config', 'show'], isolated, dir),
      runCli(['config', 'show'], { ...isolated, ONEJOB_CONFIG: file, HOOK_SECRET: hookSecret }, dir),
    ]);
    expect(builtIn.code, builtIn.stderr).toBe(0);
    expect(JSON.parse(builtIn.stdout)).toEqual(JSON.parse(JSON.stringify(defaultConfig)));
    expect(builtIn.stderr).toMatch(/built-in config/);

    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(fromEnv.stderr).toContain(file);
    const shown = JSON.parse(fromEnv.stdout);
    expect(shown.outbox.publishers[1].secretEnv).toBe('HOOK_SECRET');
    expect(shown.outbox.publishers[0].url).toBe('nats://***@127.0.0.1:4222');
    expect(shown.outbox.publishers[1].url).toBe('https://hooks.example/in?***');
    expect(shown.providers.pay.headers).toEqual({ authorization: '***' });
    for (const secret of [hookSecret, 'hunter2', 'token=abc', 'sk_live_1'])
      expect(fromEnv.stdout).not.toContain(secret);
  });

  it('config check lists every problem of a file at once and exits 2, and says ok for a good one, starting nothing', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({
        providers: { pay: { kind: 'http', url: 'https://pay.example', retries: 3 } },
        operations: { charge: { kind: 'http', providers: ['pay'], effect: 'sometimes' } },
      }),
    );
    const missingSecret = join(dir, 'missing-secret.json');
    await writeFile(missingSecret, JSON.stringify(withSecrets));
    const good = join(dir, 'good.json');
    await writeFile(good, JSON.stringify(defaultConfig));
    const [refused, unset, ok] = await Promise.all([
      runCli(['config', 'check', bad], isolated, dir),
      runCli(['config', 'check', missingSecret], isolated, dir),
      runCli(['config', 'check', good], isolated, dir),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/2 problems/);
    expect(refused.stderr).toMatch(/\/providers\/pay\/retries is not a known key/);
    expect(refused.stderr).toMatch(/\/operations\/charge\/effect must be one of/);
    // What serve refuses beyond the shape: a secret the file names but the environment lacks.
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(/\/outbox\/publishers\/1\/secretEnv names environment variable HOOK_SECRET/);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe(`${good}: ok\n`);
    expect(existsSync(join(dir, '.onejob'))).toBe(false);
  });
});
