// Provider answers are kept (attempt errors are stored, shown to the job's owner and
// logged). Configured secrets a provider echoes, and credentials in URLs it mentions,
// never get that far: the registry's providers hand the engine scrubbed outcomes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { operationFromConfig } from '../../src/operations/operationRegistry.js';
import { createProviders } from '../../src/providers/createProviders.js';
import type { ProviderCall } from '../../src/providers/types.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../helpers/fakeOpenAiServer.js';
import { type FakePaymentServer, startFakePaymentServer } from '../helpers/fakePaymentServer.js';

const API_KEY = 'sk-live-0123456789abcdef';
const HEADER_SECRET = 'hdr-secret-456789';
const SECRETS = [API_KEY, HEADER_SECRET, 'hunter2', 'admin:', 'key=abc'];

let openai: FakeOpenAiServer;
let pay: FakePaymentServer;
let config: OnejobConfig;
beforeAll(async () => {
  [openai, pay] = await Promise.all([startFakeOpenAiServer(), startFakePaymentServer()]);
  config = {
    providers: {
      llm: { kind: 'openai-compatible', baseUrl: openai.baseUrl, model: 'gpt-4o-mini', apiKeyEnv: 'LLM_KEY' },
      pay: { kind: 'http', url: pay.chargeUrl, headers: { authorization: `Bearer ${HEADER_SECRET}` } },
    },
    operations: {},
  } as OnejobConfig;
});
afterAll(async () => Promise.all([openai?.close(), pay?.close()]));

const call = (kind: 'inference.chat' | 'http'): ProviderCall => ({
  jobId: '0190c0de-0000-7000-8000-000000000001',
  attemptId: '0190c0de-0000-7000-8000-0000000000a2',
  attempt: 1,
  operation: operationFromConfig(
    'op',
    kind === 'http'
      ? { kind: 'http', providers: ['pay'] }
      : { kind: 'inference.chat', providers: ['llm'], prompt: { user: 'Say {{text}}' } },
  ),
  input: { text: 'hi', amount: 1 },
  idempotencyKey: 'key-1',
  signal: new AbortController().signal,
});

function expectScrubbed(outcome: unknown) {
  const text = JSON.stringify(outcome);
  for (const secret of SECRETS) expect(text, `keeps "${secret}"`).not.toContain(secret);
  return text;
}

describe('scrubbed provider answers', () => {
  it('an inference provider echoing its API key in a 401 message keeps [redacted] instead of the key', async () => {
    openai.script({
      kind: 'status',
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: Bearer ${API_KEY}. And ${API_KEY} again.`,
          type: 'auth',
        },
      },
    });
    const providers = createProviders(config, { LLM_KEY: API_KEY });
    const outcome = await providers.get('llm')!.call(call('inference.chat'));
    expect(outcome).toMatchObject({ kind: 'failure', error: { code: 'http_401' } });
    expect(expectScrubbed(outcome)).toContain('[redacted]');
    // The key did go out: only what comes back is scrubbed.
    expect(openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it("an http provider's 500 body with a URL carrying credentials and an echoed header value is stored scrubbed", async () => {
    pay.setScript(() => ({
      status: 500,
      body: {
        error: `upstream http://admin:hunter2@10.0.0.7:8443/ledger?key=abc failed`,
        echo: { authorization: `Bearer ${HEADER_SECRET}`, raw: HEADER_SECRET },
      },
    }));
    const providers = createProviders(config, {});
    const outcome = await providers.get('pay')!.call(call('http'));
    expect(outcome.kind).toBe('unknown');
    const text = expectScrubbed(outcome);
    expect(text).toContain('http://10.0.0.7:8443');
  });

  it('a thrown error mentioning a configured secret is rethrown scrubbed', async () => {
    const providers = createProviders(config, { LLM_KEY: API_KEY });
    providers.set({
      name: 'code',
      kind: 'code',
      idempotent: false,
      call: async () => {
        throw new Error(`failed with ${API_KEY} at https://u:hunter2@h.test/x`);
      },
    });
    await expect(providers.get('code')!.call(call('http'))).rejects.toThrow(
      'failed with [redacted] at https://h.test',
    );
  });
});
