import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationConfig } from '../../src/config/types.js';
import { operationFromConfig } from '../../src/operations/operationRegistry.js';
import { createOpenAiProvider } from '../../src/providers/openaiProvider.js';
import type { ProviderCall } from '../../src/providers/types.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../helpers/fakeOpenAiServer.js';
import { closedPort } from '../helpers/ports.js';

// Attempt errors are stored and returned to the job's owner: a provider URL carrying
// credentials or a key in its query must reach them as scheme, host and port only.

const summarize: OperationConfig = {
  kind: 'inference.chat',
  providers: ['primary'],
  effect: 'pure',
  prompt: { user: 'Summarize: {{text}}' },
  outputSchema: { type: 'object' },
  contract: { temperature: 0, fixtures: [{ input: { text: 'x' } }] },
};
const operation = operationFromConfig('summarize', summarize);

const call = (): ProviderCall => ({
  jobId: '0190c0de-0000-7000-8000-000000000001',
  attemptId: '0190c0de-0000-7000-8000-0000000000a2',
  attempt: 1,
  operation,
  input: { text: 'The fox jumps.' },
  idempotencyKey: 'job-key-1',
  signal: new AbortController().signal,
});

const SECRETS = ['user:', 'hunter2', 'api_key', 'sk-live-123', '/v1', '?'];

function expectNoSecrets(message: string) {
  for (const secret of SECRETS) expect(message, `attempt error leaks "${secret}"`).not.toContain(secret);
}

let openai: FakeOpenAiServer;
beforeAll(async () => {
  openai = await startFakeOpenAiServer();
});
afterAll(async () => openai?.close());

describe('provider errors carry no credentials', () => {
  it('a refused connection to a URL with userinfo and a query key names scheme, host and port only', async () => {
    const port = await closedPort();
    const p = createOpenAiProvider(
      'primary',
      {
        kind: 'openai-compatible',
        baseUrl: `http://user:hunter2@127.0.0.1:${port}/v1?api_key=sk-live-123`,
        model: 'gpt-4o-mini',
      },
      {},
    );
    const outcome = await p.call(call());
    expect(outcome.kind).not.toBe('success');
    const message = (outcome as { error: { message: string } }).error.message;
    expect(message).toContain(`http://127.0.0.1:${port}`);
    expectNoSecrets(message);
  });

  it('a provider error message that echoes a URL with a key is stored redacted', async () => {
    openai.script({
      kind: 'status',
      status: 401,
      body: {
        error: {
          message: 'bad key for https://user:hunter2@api.test/v1/chat?api_key=sk-live-123',
          type: 'auth',
        },
      },
    });
    const p = createOpenAiProvider(
      'primary',
      { kind: 'openai-compatible', baseUrl: openai.baseUrl, model: 'gpt-4o-mini' },
      {},
    );
    const outcome = await p.call(call());
    expect(outcome).toMatchObject({ kind: 'failure', error: { code: 'http_401' } });
    const message = (outcome as { error: { message: string } }).error.message;
    expect(message).toBe('HTTP 401: bad key for https://api.test');
    expectNoSecrets(message);
  });
});
