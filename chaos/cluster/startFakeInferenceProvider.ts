// OpenAI-compatible model providers on loopback, one server for all of them (each under
// its own path, `/<provider>/v1/chat/completions`). The primary is slow some of the time
// (so hedges start) and silent some of the time (so the deadline decides); a late window
// makes it answer after the attempt's deadline; the backup answers quickly; the
// unverified one answers well in production but breaks the contract whenever it is being
// verified, so the failover gate must keep it out. Every answer carries a fresh
// `answerId`, which lets the checker tell which request a job's result came from.
import { createServer, type Server } from 'node:http';
import { text } from 'node:stream/consumers';
import { closeServer } from '../../test/helpers/closeServer.js';
import type { InferenceRequest } from '../history/types.js';
import type { Rng } from '../random/createRng.js';

export const PRIMARY_LLM = 'llm-primary';
export const BACKUP_LLM = 'llm-backup';
export const UNVERIFIED_LLM = 'llm-unverified';

export interface InferenceBehaviour {
  /** Share of primary requests answered slowly (after `slowMs`), which starts a hedge. */
  slowShare: number;
  /** Share of primary requests never answered: the attempt times out. */
  silentShare: number;
  slowMs: { minMs: number; maxMs: number };
  /** Delay of an answer after the attempt deadline, while a late window is open. */
  lateMs: { minMs: number; maxMs: number };
}

export interface FakeInferenceProvider {
  url: string;
  /** The baseUrl a provider config uses for `name`. */
  baseUrl(name: string): string;
  requests: InferenceRequest[];
  /** Until `untilMs` (epoch), the primary answers after `lateMs`: past the attempt's deadline. */
  late(untilMs: number): void;
  /** Until `untilMs` (epoch), every provider holds its answers for `stallMs`. */
  stall(untilMs: number, stallMs: number): void;
  close(): Promise<void>;
}

export async function startFakeInferenceProvider(
  rng: Rng,
  behaviour: InferenceBehaviour,
): Promise<FakeInferenceProvider> {
  const requests: InferenceRequest[] = [];
  let lateUntil = 0;
  let stallUntil = 0;
  let stallMs = 0;
  let answers = 0;

  const server: Server = createServer(async (req, res) => {
    const m = /^\/([a-z0-9-]+)\/v1\/chat\/completions$/.exec((req.url ?? '').split('?')[0] ?? '');
    if (req.method !== 'POST' || !m) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no route"}}');
      return;
    }
    const provider = m[1]!;
    const key = String(req.headers['idempotency-key'] ?? '');
    const record: InferenceRequest = {
      provider,
      jobId: String(req.headers['x-onejob-job-id'] ?? ''),
      attemptId: String(req.headers['x-request-id'] ?? ''),
      attempt: Number(req.headers['x-onejob-attempt'] ?? 0),
      verification: key.startsWith('verify-'),
      receivedAt: Date.now(),
      doneAt: 0,
      outcome: 'answered',
    };
    requests.push(record);
    let gone = false;
    res.on('close', () => {
      if (!res.writableFinished) gone = true;
    });
    let body: { model?: string };
    try {
      body = JSON.parse(await text(req)) as { model?: string };
    } catch {
      res.writeHead(400).end();
      return;
    }
    let delay = rng.int(5, 40);
    if (provider === PRIMARY_LLM && !record.verification) {
      const roll = rng.next();
      if (Date.now() < lateUntil) {
        delay = rng.int(behaviour.lateMs.minMs, behaviour.lateMs.maxMs);
        record.late = true;
      } else if (roll < behaviour.silentShare) delay = Number.POSITIVE_INFINITY;
      else if (roll < behaviour.silentShare + behaviour.slowShare)
        delay = rng.int(behaviour.slowMs.minMs, behaviour.slowMs.maxMs);
    }
    if (Date.now() < stallUntil) delay = Math.max(delay, stallMs);
    // Held until the delay passes or the caller hangs up (an aborted loser, a deadline).
    await new Promise<void>((resolve) => {
      const timer = Number.isFinite(delay) ? setTimeout(resolve, delay) : undefined;
      res.on('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    record.doneAt = Date.now();
    if (gone || res.destroyed) {
      record.outcome = Number.isFinite(delay) ? 'aborted' : 'silent';
      return;
    }
    const answerId = `ans-${++answers}`;
    record.answerId = answerId;
    // The unverified provider breaks the output contract only while it is being verified.
    const content =
      provider === UNVERIFIED_LLM && record.verification
        ? JSON.stringify({ summary: 42 })
        : JSON.stringify({ summary: `summary by ${provider}`, answerId });
    const input = rng.int(20, 60);
    const output = rng.int(5, 30);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${answerId}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? provider,
        choices: [
          { index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: (name) => `${url}/${name}/v1`,
    requests,
    late(until) {
      lateUntil = until;
    },
    stall(until, ms) {
      stallUntil = until;
      stallMs = ms;
    },
    close: () => closeServer(server),
  };
}
