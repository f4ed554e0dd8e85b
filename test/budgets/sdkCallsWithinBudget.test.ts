// Sixty concurrent calls through the official OpenAI SDK against a budget that holds
// about nine at once: what the upstream generates, priced, never passes the budget, the
// calls that fit are answered, and the SDK does not retry the refused ones.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdPrice } from '../../src/budgets/holdPrice.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../helpers/fakeOpenAiServer.js';
import { OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let upstream: FakeOpenAiServer;
let t: TestApp;
// A micro per token either way: the priced generation is its input plus output tokens.
const prices = { inputPerMillionMicros: 1_000_000, outputPerMillionMicros: 1_000_000, currency: 'USD' };
const ANSWER = { kind: 'answer' as const, text: 'ok', inputTokens: 12, outputTokens: 30 };

beforeAll(async () => {
  upstream = await startFakeOpenAiServer();
  upstream.script(ANSWER);
  const config: OnejobConfig = {
    providers: {
      primary: { kind: 'openai-compatible', baseUrl: upstream.baseUrl, model: 'gpt-4o-mini', prices },
    },
    operations: {},
    compat: {
      models: { 'gpt-4o-mini': { providers: ['primary'], attemptTimeoutMs: 60_000, maxAttempts: 1 } },
    },
    worker: { concurrency: 16, pollMs: 20 },
  };
  t = await startTestApp({ config });
  await t.onejob.start({ roles: ['worker'] });
});
afterAll(async () => {
  await Promise.all([t?.close(), upstream?.close()]);
});

describe('budgets through the SDK drop-in', () => {
  it('60 concurrent SDK calls against a budget of about nine holds: priced generations stay within it, those that fit are answered, refusals are 402 and never retried', async () => {
    const messages = [{ role: 'user' as const, content: 'Say ok.' }];
    const operation = t.onejob.operations.get('compat:gpt-4o-mini')!;
    const hold = (await holdPrice(t.onejob.config, operation, 'primary', { messages, maxTokens: 100 }))!;
    const limit = hold.amountMicros * 9 + Math.floor(hold.amountMicros / 2);
    await t.onejob.pool.query(
      `INSERT INTO onejob.budgets (owner_id, currency, limit_micros, period) VALUES ($1, 'USD', $2, 'total')`,
      [OWNER_A.owner, limit],
    );
    const sent = new Map<string, number>();
    const client = new OpenAI({
      baseURL: `${t.url}/compat/openai/v1`,
      apiKey: OWNER_A.token,
      maxRetries: 3,
      fetch: (input, init) => {
        const k = new Headers(init?.headers).get('idempotency-key') ?? '';
        sent.set(k, (sent.get(k) ?? 0) + 1);
        return fetch(input, init);
      },
    });
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) =>
        client.chat.completions.create(
          { model: 'gpt-4o-mini', messages, max_tokens: 100 },
          { headers: { 'Idempotency-Key': `sixty-${i}` } },
        ),
      ),
    );
    const answered = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.flatMap((r) =>
      r.status === 'rejected' ? [r.reason as InstanceType<typeof OpenAI.APIError>] : [],
    );
    expect(answered).toBeGreaterThanOrEqual(9);
    expect(answered + refused.length).toBe(60);
    for (const error of refused) {
      expect(error.status).toBe(402);
      expect(error.headers?.get('x-should-retry')).toBe('false');
    }
    // One request per call: the SDK retried none.
    expect([...sent.values()].every((n) => n === 1)).toBe(true);
    expect(sent.size).toBe(60);
    const priced = upstream.requests.length * (ANSWER.inputTokens + ANSWER.outputTokens);
    expect(priced).toBeLessThanOrEqual(limit);
    expect(upstream.requests.length).toBe(answered);
    const { rows } = await t.onejob.pool.query<{ spent: string; held: string }>(
      `SELECT spent_micros AS spent, held_micros AS held FROM onejob.budget_usage WHERE owner_id = $1`,
      [OWNER_A.owner],
    );
    expect(rows).toEqual([{ spent: String(priced), held: '0' }]);
  });
});
