import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { runCli } from '../cli/runCli.js';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../helpers/fakeAnthropicServer.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../helpers/fakeOpenAiServer.js';
import { ADMIN_TOKEN, OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let openai: FakeOpenAiServer;
let anthropic: FakeAnthropicServer;
let t: TestApp;

beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startFakeOpenAiServer(), startFakeAnthropicServer()]);
  openai.script({ kind: 'answer', text: '{"summary":"A fox."}' });
  anthropic.script({ kind: 'answer', text: '{"summary":"A fox.","mood":"cheerful"}' });
  const config: OnejobConfig = {
    providers: {
      primary: { kind: 'simulated' },
      good: {
        kind: 'openai-compatible',
        baseUrl: openai.baseUrl,
        model: 'gpt-4o-mini',
        apiKeyEnv: 'ONEJOB_TEST_GOOD_KEY',
      },
      liar: { kind: 'anthropic', baseUrl: anthropic.baseUrl, model: 'claude-sonnet-4-5' },
    },
    operations: {
      summarize: {
        kind: 'inference.chat',
        providers: ['primary', 'good', 'liar'],
        effect: 'pure',
        prompt: { user: 'Summarize: {{text}}' },
        outputSchema: {
          type: 'object',
          required: ['summary'],
          additionalProperties: false,
          properties: { summary: { type: 'string' } },
        },
        contract: { fixtures: [{ input: { text: 'The quick brown fox.' } }], temperature: 0 },
      },
    },
  };
  // The server's config, not the CLI's: the CLI reads it through the API.
  process.env.ONEJOB_TEST_GOOD_KEY = 'sk-good';
  t = await startTestApp({ config });
});
afterAll(async () => {
  await Promise.all([openai?.close(), anthropic?.close(), t?.close()]);
});

const admin = () => ({ ONEJOB_URL: t.url, ONEJOB_ADMIN_TOKEN: ADMIN_TOKEN });

describe('onejob providers', { timeout: 120_000 }, () => {
  it("verify (admin token) exits 0 for an honest provider and 1 for a liar, naming the check; list shows the server's matrix", async () => {
    const [good, liar] = await Promise.all([
      runCli(['providers', 'verify', 'good', '--operation', 'summarize'], admin()),
      runCli(['providers', 'verify', 'liar', '--operation', 'summarize'], admin()),
    ]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/ok {3}round_trip/);
    expect(good.stdout).toContain('verified: good honoured the contract of summarize');
    expect(openai.requests[0]?.headers.authorization).toBe('Bearer sk-good');
    expect(liar.code, liar.stderr).toBe(1);
    expect(liar.stdout).toMatch(
      /FAIL output_contract +the output breaks the contract: \/mood is not allowed by the output schema/,
    );

    const list = await runCli(['providers', 'list', '--json'], {
      ONEJOB_URL: t.url,
      ONEJOB_TOKEN: OWNER_A.token,
    });
    expect(list.code, list.stderr).toBe(0);
    const { items } = JSON.parse(list.stdout) as {
      items: {
        name: string;
        operations: { operation: string; status: string; failoverAllowed: boolean }[];
      }[];
    };
    const status = Object.fromEntries(items.map((p) => [p.name, p.operations[0]?.status]));
    expect(status).toEqual({ primary: 'never', good: 'verified', liar: 'failed' });
  });

  it('verify without the admin token says to set ONEJOB_ADMIN_TOKEN and exits non-zero', async () => {
    const r = await runCli(['providers', 'verify', 'good', '--operation', 'summarize'], {
      ONEJOB_URL: t.url,
      ONEJOB_TOKEN: OWNER_A.token,
      ONEJOB_ADMIN_TOKEN: undefined,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/set ONEJOB_ADMIN_TOKEN/);
  });
});
