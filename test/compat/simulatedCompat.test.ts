// The built-in config's compat model, served by a simulated provider: the official SDKs get
// a completion offline, in both wire formats, streamed or whole, the same one for every
// call with one key; a scripted failure fails over like a real provider's would.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { verifyProvider } from '../../src/providers/verification/verifyProvider.js';
import { OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  const config = structuredClone(defaultConfig) as OnejobConfig;
  config.providers['sim-refuses'] = { kind: 'simulated', latencyMs: 0, script: [{ outcome: 'failure' }] };
  config.providers['sim-fallback'] = { kind: 'simulated', latencyMs: 0 };
  config.compat = {
    models: {
      ...config.compat?.models,
      'failing-first': {
        providers: ['sim-refuses', 'sim-fallback'],
        contract: { fixtures: [{ input: { messages: [{ role: 'user', content: 'hello' }] } }] },
      },
    },
  };
  config.worker = { pollMs: 20 };
  t = await startTestApp({ config });
  await t.onejob.start({ roles: ['worker'] });
  expect((await verifyProvider(t.onejob, 'sim-fallback', 'compat:failing-first')).passed).toBe(true);
});
afterAll(async () => t?.close());

const openai = () => new OpenAI({ baseURL: `${t.url}/compat/openai/v1`, apiKey: OWNER_A.token });
const anthropic = () => new Anthropic({ baseURL: `${t.url}/compat/anthropic`, apiKey: OWNER_A.token });
const key = (k: string) => ({ headers: { 'Idempotency-Key': k } });
const messages = [{ role: 'user' as const, content: 'What does onejob do?' }];

describe('the built-in compat model on a simulated provider', () => {
  it('the README example answers offline, and the same key answers the same completion', async () => {
    const client = openai();
    const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages }, key('sim-1'));
    const again = await client.chat.completions.create({ model: 'gpt-4o-mini', messages }, key('sim-1'));
    expect(first.choices[0]?.message.content).toMatch(
      /simulated answer .* You wrote: "What does onejob do\?"/,
    );
    expect(first.choices[0]?.finish_reason).toBe('stop');
    expect(first.usage?.completion_tokens).toBeGreaterThan(0);
    expect(again).toEqual(first);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('gpt-4o-mini');
    // Priced like the model it stands for: the attempt's cost is in the job.
    const { rows } = await t.onejob.pool.query<{ cost_micros: string | null; provider: string }>(
      `SELECT a.cost_micros, a.provider FROM onejob.attempts a JOIN onejob.jobs j ON j.id = a.job_id
        WHERE j.idempotency_key = 'sim-1'`,
    );
    expect(rows).toEqual([{ cost_micros: expect.any(String), provider: 'sim-chat' }]);
  });

  it('a stream in either SDK carries the same text as the whole answer, and its replay the same chunks', async () => {
    const whole = await openai().chat.completions.create(
      { model: 'gpt-4o-mini', messages },
      key('sim-whole'),
    );
    const stream = await openai().chat.completions.create(
      { model: 'gpt-4o-mini', messages, stream: true },
      key('sim-stream'),
    );
    const chunks: string[] = [];
    for await (const chunk of stream) chunks.push(chunk.choices[0]?.delta.content ?? '');
    expect(chunks.filter(Boolean).length).toBeGreaterThan(3);
    expect(chunks.join('')).toBe(whole.choices[0]?.message.content);
    const replay = await openai().chat.completions.create(
      { model: 'gpt-4o-mini', messages, stream: true },
      key('sim-stream'),
    );
    const replayed: string[] = [];
    for await (const chunk of replay) replayed.push(chunk.choices[0]?.delta.content ?? '');
    expect(replayed).toEqual(chunks);

    const texts: string[] = [];
    const message = anthropic().messages.stream(
      { model: 'gpt-4o-mini', max_tokens: 200, messages },
      key('sim-anthropic'),
    );
    message.on('text', (text) => texts.push(text));
    const final = await message.finalMessage();
    expect(texts.join('')).toBe(whole.choices[0]?.message.content);
    expect(final.content).toEqual([{ type: 'text', text: whole.choices[0]?.message.content }]);
    expect(final.stop_reason).toBe('end_turn');
  });

  it('honours max_tokens, stop and JSON response formats as a model would', async () => {
    const cut = await openai().chat.completions.create(
      { model: 'gpt-4o-mini', messages, max_tokens: 3 },
      key('sim-short'),
    );
    expect(cut.choices[0]?.finish_reason).toBe('length');
    expect(cut.choices[0]?.message.content).toHaveLength(12);
    const stopped = await anthropic().messages.create(
      { model: 'gpt-4o-mini', max_tokens: 200, messages, stop_sequences: ['made'] },
      key('sim-stop'),
    );
    expect(stopped.stop_reason).toBe('stop_sequence');
    expect(stopped.stop_sequence).toBe('made');
    const json = await openai().chat.completions.create(
      {
        model: 'gpt-4o-mini',
        messages,
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'answer',
            schema: { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } },
          },
        },
      },
      key('sim-json'),
    );
    expect(JSON.parse(json.choices[0]?.message.content ?? '')).toEqual({ summary: expect.any(String) });
  });

  it('a scripted failure fails over to the verified fallback, which answers', async () => {
    const completion = await openai().chat.completions.create(
      { model: 'failing-first', messages },
      key('sim-failover'),
    );
    expect(completion.choices[0]?.message.content).toMatch(/simulated answer from sim-fallback/);
    const { rows } = await t.onejob.pool.query<{ provider: string; state: string }>(
      `SELECT a.provider, a.state FROM onejob.attempts a JOIN onejob.jobs j ON j.id = a.job_id
        WHERE j.idempotency_key = 'sim-failover' ORDER BY a.n`,
    );
    expect(rows).toEqual([
      { provider: 'sim-refuses', state: 'failed' },
      { provider: 'sim-fallback', state: 'succeeded' },
    ]);
  });
});
