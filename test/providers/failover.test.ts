// The failover gate inside the running engine: fake OpenAI and Anthropic servers on
// loopback, a real worker, a real database. Held responses (gates) decide the order of
// events; nothing sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig, OperationConfig } from '../../src/config/types.js';
import { verifyProvider } from '../../src/providers/verification/verifyProvider.js';
import { configWith, createJob, jobInState, until } from '../attempts/attemptTestKit.js';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../helpers/fakeAnthropicServer.js';
import {
  type FakeOpenAiServer,
  Gate,
  type RecordedRequest,
  startFakeOpenAiServer,
} from '../helpers/fakeOpenAiServer.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let primary: FakeOpenAiServer;
let liar: FakeAnthropicServer;
let honest: FakeAnthropicServer;
let t: TestApp;
const gates: Gate[] = [];

const prices = { inputPerMillionMicros: 1_000_000, outputPerMillionMicros: 2_000_000, currency: 'USD' };
const outputSchema = {
  type: 'object',
  required: ['summary'],
  additionalProperties: false,
  properties: { summary: { type: 'string' } },
};

function op(providers: string[], extra: Partial<OperationConfig> = {}): OperationConfig {
  return {
    kind: 'inference.chat',
    providers,
    effect: 'pure',
    attemptTimeoutMs: 2_000,
    maxAttempts: 3,
    retry: { baseDelayMs: 600_000, maxDelayMs: 600_000 },
    prompt: { system: 'Answer with JSON only: {"summary": string}.', user: 'Summarize [{{tag}}]: {{text}}' },
    outputSchema,
    rules: [
      { path: '/summary', maxLength: 40 },
      { path: '/summary', notMatches: 'as an ai', flags: 'i' },
    ],
    contract: { fixtures: [{ input: { tag: 'fixture', text: 'The quick brown fox.' } }], temperature: 0 },
    ...extra,
  };
}

function config(): OnejobConfig {
  return configWith(
    {
      primary: { kind: 'openai-compatible', baseUrl: primary.baseUrl, model: 'gpt-4o-mini', prices },
      liar: { kind: 'anthropic', baseUrl: liar.baseUrl, model: 'claude-sonnet-4-5', prices },
      honest: { kind: 'anthropic', baseUrl: honest.baseUrl, model: 'claude-sonnet-4-5', prices },
    },
    {
      // A silent primary times out at 400 ms; the liar would be the hedge after 100 ms and the
      // retry after the first timeout. With two attempts, both end unknown on the primary.
      'to-liar': op(['primary', 'liar'], {
        attemptTimeoutMs: 400,
        hedgeAfterMs: 100,
        maxAttempts: 2,
        retry: { baseDelayMs: 10, maxDelayMs: 10 },
      }),
      'to-honest': op(['primary', 'honest'], { hedgeAfterMs: 150 }),
      'primary-only': op(['primary'], { maxAttempts: 1 }),
      // No hedging: only the fallback button reaches the backup.
      manual: op(['primary', 'honest']),
    },
    // Leases long enough that a loaded machine's late heartbeat never expires one mid-test.
    { leaseMs: 5_000, pollMs: 20, graceMs: 30_000 },
  );
}

/** The user message of a chat request, which carries the test's tag. */
function tagOf(req: RecordedRequest): string {
  const messages = req.body.messages as { role: string; content: string }[];
  return /\[([^\]]+)\]/.exec(messages.find((m) => m.role === 'user')?.content ?? '')?.[1] ?? '';
}

/** Per-tag behaviour of the primary: hold behind a gate, or answer with a fixed text. */
const primaryPlan = new Map<string, { gate?: Gate; text?: string }>();

beforeAll(async () => {
  [primary, liar, honest] = await Promise.all([
    startFakeOpenAiServer(),
    startFakeAnthropicServer(),
    startFakeAnthropicServer(),
  ]);
  primary.script((req) => {
    const plan = primaryPlan.get(tagOf(req));
    if (plan?.gate)
      return {
        kind: 'hold',
        gate: plan.gate,
        after: { kind: 'answer', text: '{"summary":"late primary"}', inputTokens: 40, outputTokens: 5 },
      };
    return { kind: 'answer', text: plan?.text ?? '{"summary":"primary"}', inputTokens: 40, outputTokens: 5 };
  });
  liar.script({
    kind: 'answer',
    text: '{"summary":"A fox.","confidence":0.97}',
    inputTokens: 50,
    outputTokens: 9,
  });
  honest.script({ kind: 'answer', text: '{"summary":"honest backup"}', inputTokens: 50, outputTokens: 9 });
  t = await startTestApp({ config: config() });
  t.onejob.attempts.startWorker();
  const liarReport = await verifyProvider(t.onejob, 'liar', 'to-liar');
  const honestReport = await verifyProvider(t.onejob, 'honest', 'to-honest');
  expect(liarReport.passed).toBe(false);
  expect(honestReport.passed).toBe(true);
});
afterAll(async () => {
  for (const g of gates) g.release();
  await t?.close();
  await Promise.all([primary?.close(), liar?.close(), honest?.close()]);
});

async function attemptsOf(jobId: string) {
  const { rows } = await t.onejob.pool.query<{
    n: number;
    provider: string;
    state: string;
    origin: string;
    cost_micros: string | null;
    usage: Record<string, unknown> | null;
    error: { code: string } | null;
    rejected_output: unknown;
  }>(
    'SELECT n, provider, state, origin, cost_micros, usage, error, rejected_output FROM onejob.attempts WHERE job_id = $1 ORDER BY n',
    [jobId],
  );
  return rows;
}

describe('failover through the engine', () => {
  it('a backup that failed verification is never used, neither to hedge nor to retry: a silent primary leaves the job unknown', async () => {
    const gate = new Gate();
    gates.push(gate);
    primaryPlan.set('silent-1', { gate });
    const liarCallsBefore = liar.requests.length;
    const job = await createJob(t, 'liar-1', 'to-liar', { tag: 'silent-1', text: 'Some text.' });
    const unknown = await jobInState(t, job.id, 'unknown');
    expect(unknown.attempts.map((a) => [a.n, a.provider, a.state, a.error?.code])).toEqual([
      [1, 'primary', 'unknown', 'timeout'],
      [2, 'primary', 'unknown', 'timeout'],
    ]);
    // Two hedge points and a retry have passed: not one call went to the liar.
    expect(liar.requests.length).toBe(liarCallsBefore);
    const refused = await t.request(`/v1/jobs/${job.id}/attempts`, {
      method: 'POST',
      json: { provider: 'liar' },
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { code: string }).code).toBe('provider_not_verified');
  });

  it('a verified backup takes over when the primary is silent past hedgeAfterMs; the late primary answer is lost_race and both attempts cost', async () => {
    const gate = new Gate();
    gates.push(gate);
    primaryPlan.set('hedge-1', { gate });
    const job = await createJob(t, 'hedge-1', 'to-honest', { tag: 'hedge-1', text: 'Some text.' });
    await gate.arrived;
    const done = await jobInState(t, job.id, 'succeeded');
    expect(done.result).toEqual({ summary: 'honest backup' });
    expect(done.attempts.find((a) => a.id === done.completedBy)).toMatchObject({ n: 2, provider: 'honest' });
    // The primary's request was still open when the backup won: it is aborted, not awaited.
    gate.release();
    const attempts = await until('the primary attempt to settle', async () => {
      const rows = await attemptsOf(job.id);
      return rows.every((r) => !['starting', 'running', 'unknown'].includes(r.state)) ? rows : undefined;
    });
    expect(attempts.map((a) => [a.n, a.provider, a.origin, a.state])).toEqual([
      [1, 'primary', 'worker', 'lost_race'],
      [2, 'honest', 'hedge', 'succeeded'],
    ]);
    // Tokens times prices: 50 in + 9 out for the backup; the aborted primary is charged its
    // estimated prompt tokens, so hedging shows up as cost on both attempts.
    expect(Number(attempts[1]!.cost_micros)).toBe(50 + 18);
    expect(Number(attempts[0]!.cost_micros)).toBeGreaterThan(0);
    const after = (await (await t.request(`/v1/jobs/${job.id}`)).json()) as { result: unknown };
    expect(after.result).toEqual({ summary: 'honest backup' });
  });

  it('once a hedge wins, the primary request still open is aborted and its cost so far is recorded', async () => {
    const gate = new Gate();
    gates.push(gate);
    primaryPlan.set('abort-1', { gate });
    const job = await createJob(t, 'abort-1', 'to-honest', { tag: 'abort-1', text: 'Some text.' });
    const held = await gate.arrived;
    await jobInState(t, job.id, 'succeeded');
    expect(await held.aborted).toBe(true);
    const attempts = await until('the primary attempt to settle', async () => {
      const rows = await attemptsOf(job.id);
      return rows.every((r) => !['starting', 'running', 'unknown'].includes(r.state)) ? rows : undefined;
    });
    expect(attempts[0]).toMatchObject({
      provider: 'primary',
      state: 'lost_race',
      usage: { estimated: true },
    });
    expect(Number(attempts[0]!.cost_micros)).toBeGreaterThan(0);
  });

  it('valid JSON that breaks a business rule fails the attempt with output_contract_violation and keeps the output', async () => {
    primaryPlan.set('rule-1', { text: '{"summary":"As an AI, I summarise: a fox."}' });
    const job = await createJob(t, 'rule-1', 'primary-only', { tag: 'rule-1', text: 'Some text.' });
    const failed = await jobInState(t, job.id, 'failed');
    expect(failed.attempts).toHaveLength(1);
    const [attempt] = await attemptsOf(job.id);
    expect(attempt).toMatchObject({
      state: 'failed',
      error: { code: 'output_contract_violation' },
      rejected_output: { summary: 'As an AI, I summarise: a fox.' },
    });
    expect(attempt!.error).toMatchObject({ violations: [{ kind: 'rule', path: '/summary' }] });
    expect(Number(attempt!.cost_micros)).toBe(40 + 10);
  });

  it('changing the prompt template makes the verification stale: the same fallback is refused until verified again', async () => {
    expect((await verifyProvider(t.onejob, 'honest', 'manual')).passed).toBe(true);
    primaryPlan.set('stale-1', { text: 'not json' });
    const job = await createJob(t, 'stale-1', 'manual', { tag: 'stale-1', text: 'Some text.' });
    // The primary's answer breaks the contract; the retry waits far in the future.
    await until('the first attempt to fail', async () =>
      (await attemptsOf(job.id)).some((a) => a.state === 'failed'),
    );
    const changedConfig = config();
    changedConfig.operations.manual!.prompt = { user: 'Briefly summarize [{{tag}}]: {{text}}' };
    const changed = await startTestApp({ config: changedConfig, db: t.db });
    try {
      const refused = await changed.request(`/v1/jobs/${job.id}/attempts`, {
        method: 'POST',
        json: { provider: 'honest' },
      });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { code: string }).code).toBe('provider_not_verified');
      const matrix = (await (await changed.request('/v1/providers')).json()) as {
        items: { name: string; operations: { operation: string; status: string }[] }[];
      };
      expect(
        matrix.items.find((i) => i.name === 'honest')?.operations.find((o) => o.operation === 'manual'),
      ).toMatchObject({ status: 'stale' });
      const again = await changed.request('/v1/providers/honest/verify', {
        method: 'POST',
        json: { operation: 'manual' },
        token: ADMIN_TOKEN,
      });
      expect(((await again.json()) as { passed: boolean }).passed).toBe(true);
      const accepted = await changed.request(`/v1/jobs/${job.id}/attempts`, {
        method: 'POST',
        json: { provider: 'honest' },
      });
      expect(accepted.status).toBe(202);
      expect(((await accepted.json()) as { provider: string }).provider).toBe('honest');
    } finally {
      await changed.close();
    }
  });

  it('a missing prompt variable refuses the job at creation', async () => {
    const res = await t.request('/v1/jobs', {
      method: 'POST',
      headers: { 'idempotency-key': 'no-tag' },
      json: { operation: 'to-honest', input: { text: 'x' } },
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { code: string }).code).toBe('input_invalid');
  });

  it('GET /v1/providers shows the verified backup, the failed one and the primaries', async () => {
    const res = await t.request('/v1/providers', { token: 'token-a' });
    const { items } = (await res.json()) as {
      items: {
        name: string;
        operations: { operation: string; status: string; role: string; failoverAllowed: boolean }[];
      }[];
    };
    const cell = (p: string, o: string) =>
      items.find((i) => i.name === p)?.operations.find((x) => x.operation === o);
    expect(cell('honest', 'to-honest')).toMatchObject({
      status: 'verified',
      role: 'fallback',
      failoverAllowed: true,
    });
    expect(cell('liar', 'to-liar')).toMatchObject({
      status: 'failed',
      role: 'fallback',
      failoverAllowed: false,
    });
    expect(cell('primary', 'to-liar')).toMatchObject({
      status: 'never',
      role: 'primary',
      failoverAllowed: true,
    });
    expect(ADMIN_TOKEN).not.toBe('token-a');
  });
});
