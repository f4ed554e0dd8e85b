import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OperationConfig } from '../../src/config/types.js';
import { operationFromConfig } from '../../src/operations/operationRegistry.js';
import { createAnthropicProvider } from '../../src/providers/anthropicProvider.js';
import { createOpenAiProvider } from '../../src/providers/openaiProvider.js';
import type { ProviderCall } from '../../src/providers/types.js';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../helpers/fakeAnthropicServer.js';
import { type FakeOpenAiServer, Gate, startFakeOpenAiServer } from '../helpers/fakeOpenAiServer.js';
import { closedPort } from '../helpers/ports.js';

const summarize: OperationConfig = {
  kind: 'inference.chat',
  providers: ['primary', 'backup'],
  effect: 'pure',
  prompt: { system: 'Answer with JSON only.', user: 'Summarize: {{text}}' },
  outputSchema: {
    type: 'object',
    required: ['summary'],
    additionalProperties: false,
    properties: { summary: { type: 'string' } },
  },
  rules: [
    { path: '/summary', maxLength: 20 },
    { path: '/summary', notMatches: 'As an AI' },
  ],
  contract: { temperature: 0, fixtures: [{ input: { text: 'x' } }] },
};
const operation = operationFromConfig('summarize', summarize);
const env = { OPENAI_TEST_KEY: 'sk-openai', ANTHROPIC_TEST_KEY: 'sk-ant' };
const prices = { inputPerMillionMicros: 150_000, outputPerMillionMicros: 600_000, currency: 'USD' };

function call(overrides: Partial<ProviderCall> = {}): ProviderCall {
  return {
    jobId: '0190c0de-0000-7000-8000-000000000001',
    attemptId: '0190c0de-0000-7000-8000-0000000000a2',
    attempt: 2,
    operation,
    input: { text: 'The fox jumps.' },
    idempotencyKey: 'job-key-1',
    signal: new AbortController().signal,
    ...overrides,
  };
}

let openai: FakeOpenAiServer;
let anthropic: FakeAnthropicServer;
beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startFakeOpenAiServer(), startFakeAnthropicServer()]);
});
afterAll(async () => {
  await Promise.all([openai?.close(), anthropic?.close()]);
});

describe('openai-compatible adapter', () => {
  const provider = () =>
    createOpenAiProvider(
      'primary',
      {
        kind: 'openai-compatible',
        baseUrl: openai.baseUrl,
        model: 'gpt-4o-mini',
        apiKeyEnv: 'OPENAI_TEST_KEY',
        prices,
      },
      env,
    );
  beforeEach(() =>
    openai.script({
      kind: 'answer',
      text: '{"summary":"A fox jumps."}',
      inputTokens: 1000,
      outputTokens: 200,
    }),
  );

  it('sends the chat completions wire format with the job identity, and returns the checked result with its cost', async () => {
    const outcome = await provider().call(call());
    expect(outcome).toEqual({
      kind: 'success',
      result: { summary: 'A fox jumps.' },
      usage: { inputTokens: 1000, outputTokens: 200 },
      costMicros: 270,
    });
    const [req] = openai.requests;
    expect(req?.path).toBe('/v1/chat/completions');
    expect(req?.headers.authorization).toBe('Bearer sk-openai');
    expect(req?.headers['idempotency-key']).toBe('job-key-1');
    expect(req?.headers['x-request-id']).toBe('0190c0de-0000-7000-8000-0000000000a2');
    expect(req?.headers['x-onejob-attempt']).toBe('2');
    expect(req?.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Answer with JSON only.' },
        { role: 'user', content: 'Summarize: The fox jumps.' },
      ],
      temperature: 0,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'summarize', schema: summarize.outputSchema },
      },
    });
  });

  it('an extra top-level key is a definite output_contract_violation that keeps the output', async () => {
    openai.script({ kind: 'answer', text: '{"summary":"ok","confidence":0.9}' });
    const outcome = await provider().call(call());
    expect(outcome.kind).toBe('failure');
    if (outcome.kind !== 'failure') return;
    expect(outcome.error.code).toBe('output_contract_violation');
    expect(outcome.error.message).toContain('/confidence is not allowed');
    expect(outcome.rejectedOutput).toEqual({ summary: 'ok', confidence: 0.9 });
    expect(outcome.costMicros).toBeGreaterThan(0);
  });

  it('valid JSON that breaks a business rule is an output_contract_violation', async () => {
    openai.script({ kind: 'answer', text: '{"summary":"As an AI I cannot summarise"}' });
    const outcome = await provider().call(call());
    expect(outcome).toMatchObject({
      kind: 'failure',
      error: {
        code: 'output_contract_violation',
        violations: expect.arrayContaining([expect.objectContaining({ kind: 'rule', path: '/summary' })]),
      },
      rejectedOutput: { summary: 'As an AI I cannot summarise' },
    });
    if (outcome.kind === 'failure') expect(outcome.error.violations).toHaveLength(2);
  });

  it('prose around the JSON is a violation that keeps the raw text', async () => {
    openai.script({ kind: 'answer', text: 'Sure! {"summary":"x"}' });
    const outcome = await provider().call(call());
    expect(outcome).toMatchObject({
      kind: 'failure',
      error: { code: 'output_contract_violation' },
      rejectedOutput: 'Sure! {"summary":"x"}',
    });
  });

  it.each([
    [400, 'failure'],
    [401, 'failure'],
    [404, 'failure'],
    [408, 'unknown'],
    [409, 'unknown'],
    [425, 'unknown'],
    [500, 'unknown'],
  ])('HTTP %i is %s', async (status, kind) => {
    openai.script({
      kind: 'status',
      status,
      body: { error: { message: 'nope', type: 'x' } },
      headers: { 'retry-after': '3' },
    });
    const outcome = await provider().call(call());
    expect(outcome).toMatchObject({
      kind,
      error: { code: `http_${status}`, message: `HTTP ${status}: nope` },
    });
  });

  // The provider said it did nothing and when to come back: the engine pauses it.
  it.each([429, 503])(
    'HTTP %i with Retry-After is a definite provider_throttled failure; without it, unknown',
    async (status) => {
      openai.script(
        {
          kind: 'status',
          status,
          body: { error: { message: 'nope', type: 'x' } },
          headers: { 'retry-after': '3' },
        },
        { kind: 'status', status, body: { error: { message: 'nope', type: 'x' } } },
      );
      expect(await provider().call(call())).toMatchObject({
        kind: 'failure',
        error: { code: 'provider_throttled', status, retryAfter: '3' },
      });
      expect(await provider().call(call())).toMatchObject({
        kind: 'unknown',
        error: { code: `http_${status}`, message: `HTTP ${status}: nope` },
      });
    },
  );

  it('a refused connection is a definite failure: nothing was sent', async () => {
    const port = await closedPort();
    const p = createOpenAiProvider(
      'primary',
      { kind: 'openai-compatible', baseUrl: `http://127.0.0.1:${port}/v1`, model: 'gpt-4o-mini' },
      env,
    );
    expect(await p.call(call())).toMatchObject({ kind: 'failure', error: { code: 'connection_refused' } });
  });

  it('a connection reset after the request was sent is unknown', async () => {
    openai.script({ kind: 'reset' });
    expect(await provider().call(call())).toMatchObject({
      kind: 'unknown',
      error: { code: 'connection_reset' },
    });
  });

  it('an abort closes the open request, is unknown, and estimates the prompt cost', async () => {
    const gate = new Gate();
    openai.script({ kind: 'hold', gate });
    const controller = new AbortController();
    const pending = provider().call(call({ signal: controller.signal }));
    const held = await gate.arrived;
    controller.abort(new Error('hedge won'));
    const outcome = await pending;
    expect(await held.aborted).toBe(true);
    expect(outcome).toMatchObject({
      kind: 'unknown',
      error: { code: 'aborted' },
      usage: { estimated: true },
    });
    expect(outcome.usage?.inputTokens).toBeGreaterThan(5);
    expect(outcome.costMicros).toBeGreaterThanOrEqual(0);
  });

  it('a missing prompt variable fails before anything is sent', async () => {
    const outcome = await provider().call(call({ input: {} }));
    expect(outcome).toMatchObject({ kind: 'failure', error: { code: 'input_invalid' } });
    expect(openai.requests).toHaveLength(0);
  });
});

describe('anthropic adapter', () => {
  const provider = (maxTokens?: number) =>
    createAnthropicProvider(
      'backup',
      {
        kind: 'anthropic',
        baseUrl: anthropic.baseUrl,
        model: 'claude-sonnet-4-5',
        apiKeyEnv: 'ANTHROPIC_TEST_KEY',
        prices,
        ...(maxTokens ? { maxTokens } : {}),
      },
      env,
    );
  beforeEach(() =>
    anthropic.script({ kind: 'answer', text: '{"summary":"A fox."}', inputTokens: 2000, outputTokens: 100 }),
  );

  it('sends the messages wire format with the job identity, and reads usage', async () => {
    const outcome = await provider(300).call(call({ temperature: 0.2 }));
    expect(outcome).toEqual({
      kind: 'success',
      result: { summary: 'A fox.' },
      usage: { inputTokens: 2000, outputTokens: 100 },
      costMicros: 360,
    });
    const [req] = anthropic.requests;
    expect(req?.path).toBe('/v1/messages');
    expect(req?.headers['x-api-key']).toBe('sk-ant');
    expect(req?.headers['anthropic-version']).toBe('2023-06-01');
    expect(req?.headers['idempotency-key']).toBe('job-key-1');
    expect(req?.headers['x-request-id']).toBe('0190c0de-0000-7000-8000-0000000000a2');
    expect(req?.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      system: 'Answer with JSON only.',
      messages: [{ role: 'user', content: 'Summarize: The fox jumps.' }],
      temperature: 0.2,
    });
  });

  it('529 overloaded is unknown; 400 invalid_request_error is a definite failure', async () => {
    anthropic.script(
      {
        kind: 'status',
        status: 529,
        body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      },
      {
        kind: 'status',
        status: 400,
        body: { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } },
      },
    );
    expect(await provider().call(call())).toMatchObject({
      kind: 'unknown',
      error: { code: 'http_529', message: 'HTTP 529: overloaded_error: Overloaded' },
    });
    expect(await provider().call(call())).toMatchObject({ kind: 'failure', error: { code: 'http_400' } });
  });

  it('a hallucinated top-level key is an output_contract_violation', async () => {
    anthropic.script({ kind: 'answer', text: '{"summary":"A fox.","notes":"extra"}' });
    expect(await provider().call(call())).toMatchObject({
      kind: 'failure',
      error: { code: 'output_contract_violation' },
      rejectedOutput: { summary: 'A fox.', notes: 'extra' },
    });
  });
});
