// A loopback HTTP forwarder that can stand in for the network between a client and onejob:
// answer a request itself (503, 429...), drop the connection, hold a request until the
// target is ready, or forward it. It records every request it saw.
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from '../helpers/closeServer.js';

export interface SeenRequest {
  n: number;
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  body: string;
}

export type ProxyAction =
  | { kind: 'forward' }
  | { kind: 'respond'; status: number; headers?: Record<string, string>; body?: unknown }
  /** Close the client's connection without an answer: a lost request. */
  | { kind: 'drop' }
  /** Forward, let the server finish, then close the client's connection: a lost response. */
  | { kind: 'lose-response' };

export interface FaultyProxy {
  url: string;
  seen: SeenRequest[];
  /** Where requests are forwarded; a promise holds forwarded requests until it resolves. */
  setTarget(target: string | Promise<string>): void;
  close(): Promise<void>;
}

export async function startFaultyProxy(
  target: string | Promise<string>,
  decide: (req: SeenRequest) => ProxyAction = () => ({ kind: 'forward' }),
): Promise<FaultyProxy> {
  let current = Promise.resolve(target);
  const seen: SeenRequest[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const key = req.headers['idempotency-key'];
    const info: SeenRequest = {
      n: seen.length + 1,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      idempotencyKey: typeof key === 'string' ? key : undefined,
      body: body.toString('utf8'),
    };
    seen.push(info);
    const action = decide(info);
    if (action.kind === 'drop') return void req.socket.destroy();
    if (action.kind === 'respond') {
      const json = action.body === undefined ? '' : JSON.stringify(action.body);
      res.writeHead(action.status, { 'content-type': 'application/problem+json', ...action.headers });
      return void res.end(json);
    }
    const base = new URL(await current);
    const upstream = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: base.host },
      },
      (up) => {
        if (action.kind === 'lose-response') {
          up.resume();
          return void up.on('end', () => req.socket.destroy());
        }
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    // The upstream died mid-request: the client must see what it would see without us,
    // a connection that ends with no answer.
    upstream.on('error', () => req.socket.destroy());
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    setTarget(t) {
      current = Promise.resolve(t);
    },
    close: () => closeServer(server),
  };
}
