// A payment provider on loopback that behaves like a real one: it dedupes on the
// Idempotency-Key (one charge per key, later requests replay the result), keeps working
// on a request after the caller hung up, answers a status URL, and can be told to stall
// past the caller's timeout. It records every request it receives, for the checker.
import { createServer, type Server } from 'node:http';
import { text } from 'node:stream/consumers';
import { closeServer } from '../../test/helpers/closeServer.js';
import type { ProviderRequest } from '../history/types.js';
import type { Rng } from '../random/createRng.js';

export interface FakePaymentProvider {
  name: string;
  url: string;
  requests: ProviderRequest[];
  /** Until `untilMs` (epoch), new charges take `stallMs` to complete. */
  stall(untilMs: number, stallMs: number): void;
  close(): Promise<void>;
}

interface Charge {
  state: 'processing' | 'charged';
  result?: unknown;
}

export async function startFakePaymentProvider(
  name: string,
  rng: Rng,
  latency: { minMs: number; maxMs: number } = { minMs: 5, maxMs: 60 },
): Promise<FakePaymentProvider> {
  const charges = new Map<string, Charge>();
  const requests: ProviderRequest[] = [];
  let stallUntil = 0;
  let stallMs = 0;
  let chargeSeq = 0;

  const server: Server = createServer(async (req, res) => {
    const answer = (status: number, body: unknown) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.method === 'GET' && path.startsWith('/charge/')) {
        const key = decodeURIComponent(path.slice('/charge/'.length));
        const charge = charges.get(key);
        if (!charge) return answer(404, { error: 'no_such_request' });
        if (charge.state === 'processing') return answer(409, { error: 'processing' });
        return answer(200, charge.result);
      }
      if (req.method !== 'POST' || path !== '/charge') return answer(404, { error: 'no_route' });
      const key = String(req.headers['idempotency-key'] ?? '');
      const attempt = Number(req.headers['x-onejob-attempt'] ?? 0);
      const receivedAt = Date.now();
      const body = JSON.parse(await text(req)) as { input?: { amount?: number } };
      const record: ProviderRequest = {
        provider: name,
        key,
        attempt,
        receivedAt,
        doneAt: receivedAt,
        outcome: 'refused',
      };
      requests.push(record);
      if (!key) return answer(400, { error: 'idempotency_key_required' });
      const existing = charges.get(key);
      if (existing?.state === 'charged') {
        record.outcome = 'replayed';
        record.doneAt = Date.now();
        return answer(200, existing.result);
      }
      if (existing?.state === 'processing') {
        record.outcome = 'in_progress';
        record.doneAt = Date.now();
        return answer(409, { error: 'processing' });
      }
      const charge: Charge = { state: 'processing' };
      charges.set(key, charge);
      const delay = Date.now() < stallUntil ? stallMs : rng.int(latency.minMs, latency.maxMs);
      // The work goes on whether or not the caller is still listening.
      await new Promise((r) => setTimeout(r, delay));
      charge.state = 'charged';
      charge.result = { chargeId: `ch_${++chargeSeq}`, amount: body.input?.amount ?? null, key };
      record.outcome = 'charged';
      record.doneAt = Date.now();
      return answer(200, charge.result);
    } catch (error) {
      return answer(400, { error: 'bad_request', message: (error as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    requests,
    stall(until, ms) {
      stallUntil = until;
      stallMs = ms;
    },
    close: () => closeServer(server),
  };
}
