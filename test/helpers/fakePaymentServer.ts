// A payment (or any HTTP) provider on 127.0.0.1 whose every answer a test scripts:
// status, body, latency, a gate to hold the answer until the test opens it, or a hang-up.
// It records every request with its headers, remembers what it did per Idempotency-Key,
// and answers GET {path}/{key} from that memory (the provider's status endpoint).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from './closeServer.js';
import { untilSignalled } from './until.js';

/** Holds whoever waits on it until the test opens it. */
export class Gate {
  private release!: () => void;
  private readonly opened = new Promise<void>((r) => {
    this.release = r;
  });
  isOpen = false;
  open(): void {
    this.isOpen = true;
    this.release();
  }
  wait(): Promise<void> {
    return this.opened;
  }
}

/** One gate per key, made on first use: a script holds each keyed answer until the test opens its gate. */
export class Gates {
  private readonly byKey = new Map<string, Gate>();
  for(key: string): Gate {
    const gate = this.byKey.get(key) ?? new Gate();
    this.byKey.set(key, gate);
    return gate;
  }
  /** Lets every held answer go, so a file's teardown never waits on a gate a test left shut. */
  openAll(): void {
    for (const gate of this.byKey.values()) gate.open();
  }
}

export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  receivedAt: number;
  /** 0-based index among the POSTs the server received. */
  index: number;
}

export interface FakeReply {
  status?: number;
  body?: unknown;
  delayMs?: number;
  /** The answer waits until this gate opens (the work counts as done when the request arrives). */
  gate?: Gate;
  /** Destroy the connection instead of answering (a reset after the request was received). */
  hangUp?: boolean;
  /** Extra response headers (Retry-After, ...). */
  headers?: Record<string, string>;
}

export type Script = (req: FakeRequest) => FakeReply | Promise<FakeReply>;

export interface FakePaymentServer {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  /** POST target for the http provider. */
  chargeUrl: string;
  /** Status URL template with `{key}`. */
  statusUrl: string;
  /** Every request received, in order (POSTs and status GETs). */
  requests: FakeRequest[];
  /** The POSTs (provider calls) only. */
  calls(path?: string): FakeRequest[];
  /** What the server decided per Idempotency-Key (answered to status queries). */
  outcomes: Map<string, { status: number; body: unknown }>;
  setScript(script: Script): void;
  /** Answers status queries only after this gate opens. */
  statusGate: Gate | undefined;
  /** Resolves once `count` requests matching `filter` have arrived. */
  waitForRequests(
    count: number,
    filter?: (r: FakeRequest) => boolean,
    timeoutMs?: number,
  ): Promise<FakeRequest[]>;
  close(): Promise<void>;
}

const defaultScript: Script = (req) => ({
  status: 200,
  body: {
    chargeId: `ch_${req.index + 1}`,
    amount: (req.body as { input?: { amount?: number } })?.input?.amount ?? null,
  },
});

export async function startFakePaymentServer(
  options: { script?: Script; statusGate?: Gate; chargePath?: string } = {},
): Promise<FakePaymentServer> {
  const chargePath = options.chargePath ?? '/charge';
  let script = options.script ?? defaultScript;
  const requests: FakeRequest[] = [];
  const outcomes = new Map<string, { status: number; body: unknown }>();
  const listeners = new Set<() => void>();
  let posts = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        /* keep the raw text */
      }
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const record: FakeRequest = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        body,
        receivedAt: Date.now(),
        index: -1,
      };
      if (record.method === 'POST') record.index = posts++;
      requests.push(record);
      for (const l of [...listeners]) l();

      if (record.method === 'GET') {
        await api.statusGate?.wait();
        const key = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
        const outcome = outcomes.get(key);
        res.writeHead(outcome ? outcome.status : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(outcome ? outcome.body : { error: 'no request with this key' }));
        return;
      }
      const reply = await script(record);
      const key = req.headers['idempotency-key'];
      if (typeof key === 'string' && !reply.hangUp)
        outcomes.set(key, { status: reply.status ?? 200, body: reply.body ?? null });
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      await reply.gate?.wait();
      if (reply.hangUp) {
        req.socket.destroy();
        return;
      }
      if (res.destroyed) return;
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body ?? null));
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const api: FakePaymentServer = {
    url,
    chargeUrl: `${url}${chargePath}`,
    statusUrl: `${url}${chargePath}/{key}`,
    requests,
    calls: (path) => requests.filter((r) => r.method === 'POST' && (path === undefined || r.path === path)),
    outcomes,
    statusGate: options.statusGate,
    setScript(s) {
      script = s;
    },
    waitForRequests(count, filter = () => true, timeoutMs = 45_000) {
      return untilSignalled(
        listeners,
        () => {
          const matching = requests.filter(filter);
          return matching.length >= count ? matching : undefined;
        },
        timeoutMs,
        () => `timed out waiting for ${count} requests; got ${requests.filter(filter).length}`,
      );
    },
    close: () => closeServer(server),
  };
  return api;
}
