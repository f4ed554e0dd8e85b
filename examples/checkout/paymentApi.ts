// A stand-in for a card payment API (think Stripe): a real HTTP server on 127.0.0.1 that
// dedupes on the Idempotency-Key header, so one key is one charge however often it is sent.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Charge {
  id: string;
  amount: number;
  currency: string;
  idempotencyKey: string;
}

export interface PaymentApi {
  url: string;
  /** Charges actually made (one per key). */
  charges(): Charge[];
  /** Requests received, duplicates included. */
  requests(): number;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

/** Amounts above `declineAbove` are declined with 402, before anything is charged. */
export async function startPaymentApi(options: { declineAbove?: number } = {}): Promise<PaymentApi> {
  const byKey = new Map<string, Charge>();
  let requests = 0;
  const server = createServer(async (req, res) => {
    requests += 1;
    const key = req.headers['idempotency-key'];
    const body = await readJson(req);
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (req.method !== 'POST' || req.url !== '/v1/charges') return send(404, { error: 'not_found' });
    if (typeof key !== 'string' || key.length === 0) return send(400, { error: 'idempotency_key_required' });
    const existing = byKey.get(key);
    if (existing) return send(200, existing);
    const amount = Number(body.amount);
    if (options.declineAbove !== undefined && amount > options.declineAbove)
      return send(402, { error: 'card_declined' });
    const charge: Charge = {
      id: `ch_${randomUUID().slice(0, 8)}`,
      amount,
      currency: String(body.currency),
      idempotencyKey: key,
    };
    byKey.set(key, charge);
    return send(200, charge);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    charges: () => [...byKey.values()],
    requests: () => requests,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
