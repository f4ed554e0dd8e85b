// Shared machinery of the fake OpenAI and Anthropic servers: a real HTTP server on
// 127.0.0.1 that records every request, answers from a per-request script, and can
// hold a response open until the test releases it or the client aborts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** Resolves true if the client went away before a response was written (an abort). */
  aborted: Promise<boolean>;
  /** True once the client has gone away without a full response. */
  wasAborted(): boolean;
}

/** What the fake does with one request. */
export type FakeReply =
  /** The model answers with this text (JSON-encode it yourself, or send prose on purpose). */
  | {
      kind: 'answer';
      text: string;
      inputTokens?: number;
      outputTokens?: number;
      delayMs?: number;
      /** A request with `stream: true`: the events up to half the text go out, then this gate holds the rest. */
      midStream?: Gate;
    }
  /** A raw HTTP status and JSON body (errors, rate limits, 5xx). */
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Hold the request open until `release()` or the client aborts; then answer with `after`. */
  | { kind: 'hold'; gate: Gate; after?: FakeReply }
  /** Drop the connection after reading the request (reset after send). */
  | { kind: 'reset' };

export type Script = FakeReply | ((req: RecordedRequest, index: number) => FakeReply);

export class Gate {
  private opened = false;
  private waiters: (() => void)[] = [];
  /** Resolves once the held request has arrived (set by the server). */
  readonly arrived: Promise<RecordedRequest>;
  private arrive!: (r: RecordedRequest) => void;
  constructor() {
    this.arrived = new Promise((r) => {
      this.arrive = r;
    });
  }
  /** @internal */ markArrived(r: RecordedRequest): void {
    this.arrive(r);
  }
  release(): void {
    this.opened = true;
    for (const w of this.waiters.splice(0)) w();
  }
  wait(): Promise<void> {
    return this.opened ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }
}

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  /** Replies used in order, one per request; the last one repeats. */
  script(...replies: Script[]): void;
  close(): Promise<void>;
}

/** The text of an answer in stream deltas of a few characters, as providers send tokens. */
export function textDeltas(text: string): string[] {
  return text.match(/[\s\S]{1,4}/g) ?? [];
}

export async function startFakeLlmServer(
  routePath: string,
  render: (reply: Extract<FakeReply, { kind: 'answer' }>, req: RecordedRequest) => unknown,
  /** Server-Sent Events of an answer, for requests with `stream: true`; the split index says where the text's second half begins. */
  renderStream?: (
    reply: Extract<FakeReply, { kind: 'answer' }>,
    req: RecordedRequest,
  ) => { events: string[]; half: number },
): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  let replies: Script[] = [{ kind: 'answer', text: '{}' }];
  const sockets = new Set<import('node:net').Socket>();

  const send = async (
    reply: FakeReply,
    rec: RecordedRequest,
    res: ServerResponse,
    req: IncomingMessage,
  ): Promise<void> => {
    if (reply.kind === 'hold') {
      reply.gate.markArrived(rec);
      await Promise.race([reply.gate.wait(), rec.aborted]);
      if (rec.wasAborted()) return;
      return send(reply.after ?? { kind: 'answer', text: '{}' }, rec, res, req);
    }
    if (reply.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (reply.kind === 'status') {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body ?? {}));
      return;
    }
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (rec.wasAborted()) return;
    if (renderStream && rec.body.stream === true) {
      const { events, half } = renderStream(reply, rec);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const [i, event] of events.entries()) {
        if (i === half && reply.midStream) {
          reply.midStream.markArrived(rec);
          await Promise.race([reply.midStream.wait(), rec.aborted]);
          if (rec.wasAborted()) return;
        }
        res.write(event);
      }
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(render(reply, rec)));
  };

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      raw += c;
    });
    req.on('end', () => {
      let aborted = false;
      let markAborted!: (v: boolean) => void;
      const abortedPromise = new Promise<boolean>((r) => {
        markAborted = r;
      });
      res.on('close', () => {
        aborted = !res.writableFinished;
        markAborted(aborted);
      });
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = { unparsed: raw };
      }
      const rec: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        aborted: abortedPromise,
        wasAborted: () => aborted,
      };
      const index = requests.push(rec) - 1;
      if (req.url !== routePath) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'not_found_error', message: `no route ${req.url}` } }));
        return;
      }
      const script = replies[Math.min(index, replies.length - 1)]!;
      const reply = typeof script === 'function' ? script(rec, index) : script;
      send(reply, rec, res, req).catch(() => req.socket.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(...next) {
      replies = next.length ? next : [{ kind: 'answer', text: '{}' }];
      requests.length = 0;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
