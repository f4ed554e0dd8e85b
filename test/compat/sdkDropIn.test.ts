// The SDK drop-in, driven by the official `openai` and `@anthropic-ai/sdk` clients with
// their own retries, against fake OpenAI and Anthropic servers on loopback and a real
// worker and database. Held upstream responses (gates) order the events; nothing sleeps.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { attemptCostTransferId } from '../../src/ledger/postAttemptCost.js';
import { verifyProvider } from '../../src/providers/verification/verifyProvider.js';
import { until } from '../attempts/attemptTestKit.js';
import { type FakeAnthropicServer, startFakeAnthropicServer } from '../helpers/fakeAnthropicServer.js';
import {
  type FakeOpenAiServer,
  type FakeReply,
  Gate,
  type RecordedRequest,
  startFakeOpenAiServer,
} from '../helpers/fakeOpenAiServer.js';
import { OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let primary: FakeOpenAiServer;
let honest: FakeAnthropicServer;
let liar: FakeAnthropicServer;
let t: TestApp;
const gates: Gate[] = [];

const prices = { inputPerMillionMicros: 1_000_000, outputPerMillionMicros: 2_000_000, currency: 'USD' };
// What a fallback must show: a short answer, with no "as an AI" in it.
const contract = {
  fixtures: [{ input: { messages: [{ role: 'user', content: 'Say hello [fixture].' }] } }],
  temperature: 0,
  rules: [
    { path: '', maxLength: 60 },
    { path: '', notMatches: 'as an ai', flags: 'i' },
  ],
};

function config(): OnejobConfig {
  return {
    providers: {
      primary: { kind: 'openai-compatible', baseUrl: primary.baseUrl, model: 'gpt-4o-mini', prices },
      honest: { kind: 'anthropic', baseUrl: honest.baseUrl, model: 'claude-sonnet-4-5', prices },
      liar: { kind: 'anthropic', baseUrl: liar.baseUrl, model: 'claude-haiku-4-5', prices },
    },
    operations: {},
    compat: {
      models: {
        'gpt-4o-mini': { providers: ['primary'], attemptTimeoutMs: 60_000 },
        // A silent primary is hedged to the verified backup after 150 ms.
        'gpt-hedged': {
          providers: ['primary', 'honest'],
          hedgeAfterMs: 150,
          attemptTimeoutMs: 60_000,
          contract,
        },
        // The liar fails its verification: a silent primary times out twice and the liar is never called.
        'gpt-to-liar': {
          providers: ['primary', 'liar'],
          hedgeAfterMs: 100,
          attemptTimeoutMs: 400,
          maxAttempts: 2,
          contract,
        },
        'claude-sonnet-4-5': { providers: ['honest'], attemptTimeoutMs: 60_000 },
        'gpt-once': { providers: ['primary'], attemptTimeoutMs: 60_000, maxAttempts: 1 },
      },
    },
    worker: { leaseMs: 5_000, pollMs: 20, graceMs: 30_000 },
  };
}

/** The tag in the last user message, `[tag]`, which says how the fakes answer. */
function tagOf(req: RecordedRequest): string {
  const messages = req.body.messages as { role: string; content: string }[];
  return /\[([^\]]+)\]/.exec(messages.at(-1)?.content ?? '')?.[1] ?? '';
}

/** Per-tag behaviour of the primary: hold behind a gate, then answer. */
const primaryPlan = new Map<string, Gate>();
/** Per-tag: stream half the answer, then hold the rest behind a gate. */
const midStreamPlan = new Map<string, Gate>();
/** Per-tag behaviour of the backup: hold behind a gate, then answer. */
const honestPlan = new Map<string, Gate>();

function held(tag: string): Gate {
  const gate = new Gate();
  gates.push(gate);
  primaryPlan.set(tag, gate);
  return gate;
}

const requestsFor = (server: { requests: RecordedRequest[] }, tag: string) =>
  server.requests.filter((r) => tagOf(r) === tag);

beforeAll(async () => {
  [primary, honest, liar] = await Promise.all([
    startFakeOpenAiServer(),
    startFakeAnthropicServer(),
    startFakeAnthropicServer(),
  ]);
  primary.script((req): FakeReply => {
    const tag = tagOf(req);
    const answer: FakeReply = {
      kind: 'answer',
      text: `Hello from the primary, about ${tag}.`,
      inputTokens: 40,
      outputTokens: 5,
    };
    const refusal: FakeReply = {
      kind: 'status',
      status: 400,
      body: { error: { message: 'This model cannot do that.', type: 'invalid_request_error' } },
    };
    const midStream = midStreamPlan.get(tag);
    const reply = tag.startsWith('refused') ? refusal : midStream ? { ...answer, midStream } : answer;
    const gate = primaryPlan.get(tag);
    return gate ? { kind: 'hold', gate, after: reply } : reply;
  });
  honest.script((req): FakeReply => {
    const answer: FakeReply = {
      kind: 'answer',
      text: `Hello from the backup, about ${tagOf(req)}.`,
      inputTokens: 50,
      outputTokens: 9,
    };
    const gate = honestPlan.get(tagOf(req));
    return gate ? { kind: 'hold', gate, after: answer } : answer;
  });
  liar.script({ kind: 'answer', text: 'As an AI language model, I am happy to say hello.' });
  t = await startTestApp({ config: config() });
  await t.onejob.start({ roles: ['worker'] });
  expect((await verifyProvider(t.onejob, 'honest', 'compat:gpt-hedged')).passed).toBe(true);
  expect((await verifyProvider(t.onejob, 'liar', 'compat:gpt-to-liar')).passed).toBe(false);
});
afterAll(async () => {
  for (const g of gates) g.release();
  await t?.close();
  await Promise.all([primary?.close(), honest?.close(), liar?.close()]);
});

/** Every response the SDK received, by status, so a test sees the SDK's own retries. */
function recordingFetch(statuses: number[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    statuses.push(response.status);
    return response;
  };
}

function openai(options: { statuses?: number[]; apiKey?: string; maxRetries?: number } = {}) {
  return new OpenAI({
    baseURL: `${t.url}/compat/openai/v1`,
    apiKey: options.apiKey ?? OWNER_A.token,
    maxRetries: options.maxRetries ?? 2,
    fetch: recordingFetch(options.statuses ?? []),
  });
}

function anthropic(options: { statuses?: number[]; apiKey?: string } = {}) {
  return new Anthropic({
    baseURL: `${t.url}/compat/anthropic`,
    apiKey: options.apiKey ?? OWNER_A.token,
    maxRetries: 2,
    fetch: recordingFetch(options.statuses ?? []),
  });
}

const key = (k: string, timeout?: number) => ({
  headers: { 'Idempotency-Key': k },
  // A per-request timeout is what the SDK announces in x-stainless-timeout.
  ...(timeout ? { timeout } : {}),
});
const ask = (tag: string, model = 'gpt-4o-mini') => ({
  model,
  messages: [{ role: 'user' as const, content: `Say hello [${tag}].` }],
});

async function attemptsOf(jobId: string) {
  const { rows } = await t.onejob.pool.query<{ id: string; n: number; provider: string; state: string }>(
    'SELECT id, n, provider, state FROM onejob.attempts WHERE job_id = $1 ORDER BY n',
    [jobId],
  );
  return rows;
}

const jobIdOf = (completionId: string) => completionId.replace(/^chatcmpl-/, '');

describe('the OpenAI SDK against /compat/openai/v1', () => {
  it('a client timeout shorter than the upstream: the SDK retries attach to the one job, one generation upstream, and the SDK gets the completion', async () => {
    const gate = held('slow-1');
    const statuses: number[] = [];
    // x-stainless-timeout: 2 (seconds): onejob answers 503 + Retry-After before the client gives up.
    const client = openai({ statuses, maxRetries: 20 });
    const pending = client.chat.completions.create(ask('slow-1'), key('slow-1', 2_000));
    await gate.arrived;
    // However the first call ended (onejob's 503 before the deadline, or the SDK's own
    // timeout on a loaded machine), the SDK came back under the same key.
    await until('the SDK to retry under the same key', async () => {
      const { rowCount } = await t.onejob.pool.query(
        "SELECT 1 FROM onejob.job_events e JOIN onejob.jobs j ON j.id = e.job_id WHERE j.idempotency_key = 'slow-1' AND e.type = 'client_retry'",
      );
      return rowCount !== null && rowCount > 0;
    });
    gate.release();
    const completion = await pending;
    expect(completion.choices[0]?.message.content).toBe('Hello from the primary, about slow-1.');
    expect(requestsFor(primary, 'slow-1')).toHaveLength(1);
    const attempts = await attemptsOf(jobIdOf(completion.id));
    expect(attempts.map((a) => [a.n, a.state])).toEqual([[1, 'succeeded']]);
    // The SDK's retry numbers are kept in the job's audit trail, not used as identity.
    const { rows } = await t.onejob.pool.query<{ data: { retryCount: number } }>(
      "SELECT data FROM onejob.job_events WHERE job_id = $1 AND type = 'client_retry' ORDER BY seq",
      [jobIdOf(completion.id)],
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]!.data.retryCount).toBe(1);
  });

  it('two concurrent calls with one key make one upstream call and get the same completion id', async () => {
    const gate = held('twin-1');
    const client = openai();
    const calls = [1, 2].map(() =>
      client.chat.completions.create(ask('twin-1'), key('twin-1')).withResponse(),
    );
    await gate.arrived;
    gate.release();
    const [a, b] = await Promise.all(
      calls.map(async (c) => {
        const { data, response } = await c;
        return { data, replayed: response.headers.get('idempotent-replayed') };
      }),
    );
    expect(a!.data.id).toBe(b!.data.id);
    expect(a!.data.choices[0]?.message.content).toBe(b!.data.choices[0]?.message.content);
    expect([a!.replayed, b!.replayed].sort()).toEqual([null, 'true']);
    expect(requestsFor(primary, 'twin-1')).toHaveLength(1);
  });

  it('a replay after completion answers the stored completion with Idempotent-Replayed: true and calls no provider', async () => {
    const client = openai();
    const first = await client.chat.completions.create(ask('replay-1'), key('replay-1'));
    const again = await client.chat.completions.create(ask('replay-1'), key('replay-1')).withResponse();
    expect(again.data).toEqual(first);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(requestsFor(primary, 'replay-1')).toHaveLength(1);
  });

  it('the same key with another body is the SDK ConflictError, at once, without retries', async () => {
    const statuses: number[] = [];
    const client = openai({ statuses });
    await client.chat.completions.create(ask('conflict-1'), key('conflict-1'));
    statuses.length = 0;
    const error = await client.chat.completions
      .create(ask('conflict-other'), key('conflict-1'))
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.ConflictError);
    expect((error as InstanceType<typeof OpenAI.ConflictError>).code).toBe('idempotency_key_reused');
    expect(statuses).toEqual([409]);
    expect(requestsFor(primary, 'conflict-other')).toHaveLength(0);
  });

  it('no key is a BadRequestError saying how to pass one; an unknown model NotFoundError; a wrong token AuthenticationError; none retried', async () => {
    const statuses: number[] = [];
    const noKey = await openai({ statuses })
      .chat.completions.create(ask('nokey-1'))
      .catch((e) => e);
    expect(noKey).toBeInstanceOf(OpenAI.BadRequestError);
    expect((noKey as Error).message).toContain('{ headers: { "Idempotency-Key": key } }');
    const unknownModel = await openai({ statuses })
      .chat.completions.create(ask('model-1', 'gpt-9'), key('model-1'))
      .catch((e) => e);
    expect(unknownModel).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknownModel as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
    const wrongToken = await openai({ statuses, apiKey: 'not-a-token' })
      .chat.completions.create(ask('token-1'), key('token-1'))
      .catch((e) => e);
    expect(wrongToken).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(statuses).toEqual([400, 404, 401]);
    expect(requestsFor(primary, 'nokey-1')).toHaveLength(0);
  });

  it('GET /models lists the configured model names, and /openapi.json the compat routes', async () => {
    const ids = [];
    for await (const model of openai().models.list()) ids.push(model.id);
    expect(ids.sort()).toEqual(['claude-sonnet-4-5', 'gpt-4o-mini', 'gpt-hedged', 'gpt-once', 'gpt-to-liar']);
    const spec = (await (await t.request('/openapi.json', { token: null })).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/compat/openai/v1/chat/completions',
        '/compat/openai/v1/models',
        '/compat/anthropic/v1/messages',
        '/compat/anthropic/v1/models',
      ]),
    );
  });
});

describe('failover behind the SDK', () => {
  it('a primary that stalls is hedged to the verified backup: one winner, and both attempts cost in the ledger', async () => {
    const gate = held('hedge-1');
    const completion = await openai().chat.completions.create(ask('hedge-1', 'gpt-hedged'), key('hedge-1'));
    expect(completion.choices[0]?.message.content).toBe('Hello from the backup, about hedge-1.');
    await gate.arrived;
    const jobId = jobIdOf(completion.id);
    const attempts = await until('the primary attempt to settle', async () => {
      const rows = await attemptsOf(jobId);
      return rows.every((r) => !['starting', 'running', 'unknown'].includes(r.state)) ? rows : undefined;
    });
    expect(attempts.map((a) => [a.n, a.provider, a.state])).toEqual([
      [1, 'primary', 'lost_race'],
      [2, 'honest', 'succeeded'],
    ]);
    const transfers = await until('both attempt costs in the ledger', async () => {
      const found = await Promise.all(
        attempts.map((a) =>
          t.onejob.ledger
            .getTransfer({ ownerId: OWNER_A.owner, id: attemptCostTransferId(a.id) })
            .catch(() => undefined),
        ),
      );
      return found.every(Boolean) ? found : undefined;
    });
    // 50 tokens in and 9 out at 1 and 2 micro-USD per token; the aborted primary at its estimated prompt.
    expect(transfers[1]!.amount).toBe(50 + 18);
    expect(transfers[0]!.amount).toBeGreaterThan(0);
  });

  it('a primary that produces text first keeps the job: the hedge racing it is aborted, lost_race, and never reaches the stream', async () => {
    const silent = held('claim-1');
    const hedgeHeld = new Gate();
    const rest = new Gate();
    gates.push(hedgeHeld, rest);
    honestPlan.set('claim-1', hedgeHeld);
    midStreamPlan.set('claim-1', rest);
    const stream = openai().chat.completions.create(
      { ...ask('claim-1', 'gpt-hedged'), stream: true },
      key('claim-1'),
    );
    await silent.arrived;
    // The primary is silent past hedgeAfterMs: the hedge starts, and its call is held too.
    const hedged = await hedgeHeld.arrived;
    silent.release();
    // The primary streams half its answer and claims the job's stream: the hedge is aborted.
    expect(await hedged.aborted).toBe(true);
    rest.release();
    const pieces: string[] = [];
    for await (const chunk of await stream) pieces.push(chunk.choices[0]?.delta.content ?? '');
    expect(pieces.join('')).toBe('Hello from the primary, about claim-1.');
    const jobId = (await t.onejob.jobs.list(OWNER_A.owner, { idempotencyKey: 'claim-1' })).items[0]!.id;
    const attempts = await until('the hedge to settle', async () => {
      const rows = await attemptsOf(jobId);
      return rows.every((r) => !['starting', 'running', 'unknown'].includes(r.state)) ? rows : undefined;
    });
    expect(attempts.map((a) => [a.n, a.provider, a.state])).toEqual([
      [1, 'primary', 'succeeded'],
      [2, 'honest', 'lost_race'],
    ]);
  });

  it('an unverified fallback is never used: a silent primary times out twice and the call says the job is not done', async () => {
    held('liar-1');
    // x-stainless-timeout: 5: onejob answers 503 at 4.5 s, the job still unsettled.
    const error = await openai({ maxRetries: 0 })
      .chat.completions.create(ask('liar-1', 'gpt-to-liar'), key('liar-1', 5_000))
      .catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    const headers = (error as InstanceType<typeof OpenAI.APIError>).headers;
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('completion_pending');
    expect([headers?.get('x-should-retry'), headers?.get('retry-after')]).toEqual(['true', '1']);
    const jobId = headers?.get('x-onejob-job-id');
    expect(jobId).toBeTruthy();
    const attempts = await until('both attempts to time out', async () => {
      const rows = await attemptsOf(jobId!);
      return rows.length === 2 && rows.every((r) => r.state === 'unknown') ? rows : undefined;
    });
    expect(attempts.map((a) => a.provider)).toEqual(['primary', 'primary']);
    expect(liar.requests.filter((r) => tagOf(r) === 'liar-1')).toHaveLength(0);
  });
});

describe('the Anthropic SDK against /compat/anthropic', () => {
  const message = (tag: string) => ({
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    messages: [{ role: 'user' as const, content: `Say hello [${tag}].` }],
  });

  it('answers in the Messages format with the x-api-key the SDK sends; a replay gets the same message', async () => {
    const client = anthropic();
    const first = await client.messages.create(message('msg-1'), key('msg-1'));
    expect(first.content).toEqual([{ type: 'text', text: 'Hello from the backup, about msg-1.' }]);
    expect(first.stop_reason).toBe('end_turn');
    const again = await client.messages.create(message('msg-1'), key('msg-1'));
    expect(again).toEqual(first);
    expect(requestsFor(honest, 'msg-1')).toHaveLength(1);
  });

  it('GET /models lists the configured model names', async () => {
    const ids = [];
    for await (const model of anthropic().models.list()) ids.push(model.id);
    expect(ids).toContain('claude-sonnet-4-5');
  });

  it('no key, an unknown model, a wrong key and a reused key are the SDK error classes, none retried', async () => {
    const statuses: number[] = [];
    const client = anthropic({ statuses });
    const noKey = await client.messages.create(message('a-nokey')).catch((e) => e);
    expect(noKey).toBeInstanceOf(Anthropic.BadRequestError);
    const unknownModel = await client.messages
      .create({ ...message('a-model'), model: 'claude-9' }, key('a-model'))
      .catch((e) => e);
    expect(unknownModel).toBeInstanceOf(Anthropic.NotFoundError);
    const wrongKey = await anthropic({ statuses, apiKey: 'not-a-token' })
      .messages.create(message('a-token'), key('a-token'))
      .catch((e) => e);
    expect(wrongKey).toBeInstanceOf(Anthropic.AuthenticationError);
    await client.messages.create(message('a-conflict'), key('a-conflict'));
    statuses.length = 0;
    const conflict = await client.messages
      .create(message('a-conflict-other'), key('a-conflict'))
      .catch((e) => e);
    expect(conflict).toBeInstanceOf(Anthropic.ConflictError);
    expect(statuses).toEqual([409]);
  });
});

/** A raw call, for the bytes of a stream. */
async function rawStream(path: string, idempotencyKey: string, body: unknown) {
  const response = await fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${OWNER_A.token}`,
      'idempotency-key': idempotencyKey,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    replayed: response.headers.get('idempotent-replayed'),
    text: await response.text(),
  };
}

describe('failed jobs', () => {
  it('a job whose every attempt failed is a final 502 completion_failed, not retried; a stream of it ends with an error event', async () => {
    const statuses: number[] = [];
    const failed = await openai({ statuses })
      .chat.completions.create(ask('refused-1', 'gpt-once'), key('refused-1'))
      .catch((e) => e);
    expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
    expect((failed as InstanceType<typeof OpenAI.APIError>).code).toBe('completion_failed');
    expect((failed as Error).message).toContain('This model cannot do that.');
    expect(statuses).toEqual([502]);
    const gate = held('refused-2');
    const stream = openai().chat.completions.create(
      { ...ask('refused-2', 'gpt-once'), stream: true },
      key('refused-2'),
    );
    await gate.arrived;
    gate.release();
    const streamed = await (async () => {
      for await (const _chunk of await stream) {
        // no chunk comes before the error event
      }
    })().catch((e) => e);
    expect(streamed).toBeInstanceOf(OpenAI.APIError);
    expect((streamed as InstanceType<typeof OpenAI.APIError>).code).toBe('completion_failed');
    expect((streamed as Error).message).toContain('This model cannot do that.');
    expect(requestsFor(primary, 'refused-2')).toHaveLength(1);
  });
});

describe('streams', () => {
  it('a live stream relays the winner while it generates; a duplicate attaches to what was produced so far; the replay is the same', async () => {
    const gate = new Gate();
    gates.push(gate);
    midStreamPlan.set('live-1', gate);
    const body = { ...ask('live-1'), stream: true as const };
    const live = (await openai().chat.completions.create(body, key('live-1')))[Symbol.asyncIterator]();
    const livePieces: string[] = [];
    // The upstream holds half of its answer: pieces arrive before it has finished.
    while (livePieces.join('').length === 0) {
      const next = await live.next();
      if (next.done) throw new Error('the stream ended before the upstream finished');
      livePieces.push(next.value.choices[0]?.delta.content ?? '');
    }
    expect(requestsFor(primary, 'live-1')[0]!.wasAborted()).toBe(false);
    const duplicate = openai().chat.completions.create(body, key('live-1'));
    const rawLive = rawStream('/compat/openai/v1/chat/completions', 'live-1', body);
    const duplicatePieces: string[] = [];
    const duplicateIterator = (await duplicate)[Symbol.asyncIterator]();
    // The duplicate starts with what the winner produced so far, while the upstream still holds the rest.
    while (duplicatePieces.join('').length === 0) {
      const next = await duplicateIterator.next();
      if (next.done) throw new Error('the duplicate ended before the upstream finished');
      duplicatePieces.push(next.value.choices[0]?.delta.content ?? '');
    }
    expect(requestsFor(primary, 'live-1')[0]!.wasAborted()).toBe(false);
    gate.release();
    for (let next = await live.next(); !next.done; next = await live.next())
      livePieces.push(next.value.choices[0]?.delta.content ?? '');
    for (let next = await duplicateIterator.next(); !next.done; next = await duplicateIterator.next())
      duplicatePieces.push(next.value.choices[0]?.delta.content ?? '');
    const replay = await rawStream('/compat/openai/v1/chat/completions', 'live-1', body);
    expect((await rawLive).text).toBe(replay.text);
    expect(livePieces.join('')).toBe('Hello from the primary, about live-1.');
    expect(duplicatePieces.filter(Boolean)).toEqual(livePieces.filter(Boolean));
    expect(requestsFor(primary, 'live-1')).toHaveLength(1);
    const jobId = replay.text.match(/"id":"chatcmpl-([0-9a-f-]+)"/)?.[1];
    const { rows } = await t.onejob.pool.query(
      "SELECT type FROM onejob.job_events WHERE job_id = $1 AND type = 'stream_claimed'",
      [jobId],
    );
    expect(rows).toHaveLength(1);
  });

  it('OpenAI: a live stream, a duplicate attached to it and a replay after completion carry the same chunks, ending with [DONE]', async () => {
    const gate = held('stream-1');
    const body = { ...ask('stream-1'), stream: true, stream_options: { include_usage: true } };
    const live = rawStream('/compat/openai/v1/chat/completions', 'stream-1', body);
    await gate.arrived;
    const attached = openai().chat.completions.create(
      { ...ask('stream-1'), stream: true, stream_options: { include_usage: true } },
      key('stream-1'),
    );
    const duplicate = rawStream('/compat/openai/v1/chat/completions', 'stream-1', body);
    gate.release();
    const [first, second] = await Promise.all([live, duplicate]);
    const pieces: string[] = [];
    let usage: unknown;
    for await (const chunk of await attached) {
      pieces.push(chunk.choices[0]?.delta.content ?? '');
      if (chunk.usage) usage = chunk.usage;
    }
    const replay = await rawStream('/compat/openai/v1/chat/completions', 'stream-1', body);
    expect(first.status).toBe(200);
    expect(first.text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(second.text).toBe(first.text);
    expect(replay.text).toBe(first.text);
    expect(replay.replayed).toBe('true');
    expect(pieces.join('')).toBe('Hello from the primary, about stream-1.');
    expect(pieces.filter(Boolean).length).toBeGreaterThan(1);
    expect(usage).toEqual({ prompt_tokens: 40, completion_tokens: 5, total_tokens: 45 });
    expect(requestsFor(primary, 'stream-1')).toHaveLength(1);
  });

  it('Anthropic: a stream and its replay carry the same events, ending with message_stop', async () => {
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'Say hello [stream-2].' }],
    };
    const first = await rawStream('/compat/anthropic/v1/messages', 'stream-2', body);
    const stream = await anthropic().messages.create(
      { ...body, stream: true, messages: [{ role: 'user', content: 'Say hello [stream-2].' }] },
      key('stream-2'),
    );
    const types: string[] = [];
    const pieces: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        pieces.push(event.delta.text);
    }
    const replay = await rawStream('/compat/anthropic/v1/messages', 'stream-2', body);
    expect(first.text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    expect(replay.text).toBe(first.text);
    expect(pieces.join('')).toBe('Hello from the backup, about stream-2.');
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(requestsFor(honest, 'stream-2')).toHaveLength(1);
  });
});
