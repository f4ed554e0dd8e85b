import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSING_CLAIM, DEMO_RECIPE, demoClosing } from '../../src/cli/demo/demoClosing.js';
import { DEMO_SECRET_ENV, demoConfig } from '../../src/cli/demo/demoConfig.js';
import { demoPrinter } from '../../src/cli/demo/demoPrinter.js';
import { runDemo, stalledThenFallback } from '../../src/cli/demo/runDemo.js';
import { createClient } from '../../src/client/index.js';
import { ADMIN_TOKEN, OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';

const SECRET = 'whsec_dGVzdC1zZWNyZXQtZm9yLXRoZS1kZW1vLXNvdXJjZQ==';

async function demoAgainst(t: TestApp, env: NodeJS.ProcessEnv) {
  let out = '';
  const outcomes = await runDemo({
    client: createClient({ baseUrl: t.url, token: OWNER_A.token, retry: false }),
    baseUrl: t.url,
    token: OWNER_A.token,
    print: demoPrinter(t.url, (s) => {
      out += s;
    }),
    env,
  });
  return { outcomes, out, closing: demoClosing(outcomes, t.url) };
}

describe('the closing lines of onejob demo', () => {
  it('claim "every scene" only when every scene ran in full', () => {
    expect(demoClosing(['ran', 'ran', 'ran', 'ran', 'ran'], 'http://x')).toContain(CLOSING_CLAIM);
    for (const skipped of ['skipped', 'partial', 'stopped'] as const) {
      const text = demoClosing(['ran', 'ran', skipped, 'ran', 'ran'], 'http://x');
      expect(text).not.toContain(CLOSING_CLAIM);
      expect(text).toContain(`Not in full: 3 (${skipped})`);
      expect(text).toContain(DEMO_RECIPE);
    }
  });

  it('the recipe is one paste: the secret is generated once, and both variables are exported for both processes', () => {
    expect(DEMO_RECIPE.match(/urandom/g)).toHaveLength(2);
    expect(DEMO_RECIPE).toMatch(new RegExp(`^  export ${DEMO_SECRET_ENV}="whsec_\\$\\(head`, 'm'));
    expect(DEMO_RECIPE).toMatch(/^ {2}export ONEJOB_ADMIN_TOKEN="\$\(head/m);
    expect(DEMO_RECIPE).toMatch(/ONEJOB_CONFIG=demo.json npx onejob serve .*&$/m);
    expect(DEMO_RECIPE).toMatch(/^ {2}npx onejob demo$/m);
    expect(DEMO_RECIPE).not.toMatch(/same/);
  });
});

describe('onejob demo against a server', { timeout: 120_000 }, () => {
  let plain: TestApp;
  let full: TestApp;
  beforeAll(async () => {
    process.env[DEMO_SECRET_ENV] = SECRET;
    [plain, full] = await Promise.all([startTestApp(), startTestApp({ config: demoConfig })]);
    await Promise.all([plain.onejob.start({ roles: ['worker'] }), full.onejob.start({ roles: ['worker'] })]);
  });
  afterAll(async () => {
    await Promise.all([plain?.close(), full?.close()]);
    delete process.env[DEMO_SECRET_ENV];
  });

  it('with the built-in config, scenes 3-5 are skipped, and the closing claims nothing and prints the recipe', async () => {
    const { outcomes, closing } = await demoAgainst(plain, {});
    expect(outcomes).toEqual(['ran', 'ran', 'skipped', 'skipped', 'skipped']);
    expect(closing).not.toContain(CLOSING_CLAIM);
    expect(closing).toContain('Scenes run in full: 1, 2. Not in full: 3 (skipped), 4 (skipped), 5 (skipped)');
    expect(closing).toContain(DEMO_RECIPE);
  });

  it("scene 2 names the attempt the fallback button started: the job's first, #1, when request 1's job had not started", async () => {
    const idle = await startTestApp();
    try {
      const client = createClient({ baseUrl: idle.url, token: OWNER_A.token, retry: false });
      // No worker until the button is pressed: request 1's job is still queued then.
      const retry = client.jobs.retry;
      const held = {
        ...client,
        jobs: {
          ...client.jobs,
          retry: async (...args: Parameters<typeof retry>) => {
            const attempt = await retry(...args);
            await idle.onejob.start({ roles: ['worker'] });
            return attempt;
          },
        },
      };
      let out = '';
      const outcomes = await runDemo(
        {
          client: held,
          baseUrl: idle.url,
          token: OWNER_A.token,
          print: demoPrinter(idle.url, (text) => {
            out += text;
          }),
          env: {},
        },
        [stalledThenFallback],
      );
      expect(outcomes).toEqual(['ran']);
      expect(out).toMatch(/the fallback button started the job's first attempt, #1 on sim-pay/);
      expect(out).toMatch(/job state succeeded; attempts: #1 sim-pay winner/);
    } finally {
      await idle.close();
    }
  });

  it('with the demo config, the admin token and the secret, all five scenes run; scene 3 abandons and ends succeeded on the fallback', async () => {
    const { outcomes, out, closing } = await demoAgainst(full, {
      ONEJOB_ADMIN_TOKEN: ADMIN_TOKEN,
      [DEMO_SECRET_ENV]: SECRET,
    });
    expect(outcomes, out).toEqual(['ran', 'ran', 'ran', 'ran', 'ran']);
    expect(closing).toContain(CLOSING_CLAIM);
    const scene3 = out.slice(out.indexOf('\n3. '), out.indexOf('\n4. '));
    expect(scene3).toMatch(/abandoned attempt #1/);
    expect(scene3).toMatch(/job state succeeded; attempts: #1 sim-silent abandoned, #2 sim-quick winner/);
  });
});
