// An OTLP/HTTP trace receiver on 127.0.0.1: it takes what an exporter POSTs to
// /v1/traces, decodes it (JSON, or protobuf through a small wire-format reader) into
// flat spans, and answers 200 like a collector.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from './closeServer.js';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP enum: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  events: string[];
  serviceName: unknown;
}

export interface FakeOtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the requests received. */
  contentTypes: string[];
  close(): Promise<void>;
}

type Json = Record<string, any>;

function anyValue(v: Json | undefined): unknown {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  return v;
}

function attributes(list: Json[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, anyValue(a.value)]));
}

function fromJson(body: Json): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const serviceName = attributes(rs.resource?.attributes)['service.name'];
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind,
          attributes: attributes(s.attributes),
          events: (s.events ?? []).map((e: Json) => e.name),
          serviceName,
        });
  }
  return out;
}

/** Protobuf wire format: field number -> values (varints as bigint, length-delimited as bytes). */
function fields(buf: Buffer): Map<number, (bigint | Buffer)[]> {
  const out = new Map<number, (bigint | Buffer)[]>();
  let i = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const [field, wire] = [key >> 3, key & 7];
    const take = (n: number): Buffer => {
      const slice = buf.subarray(i, i + n);
      i += n;
      return slice;
    };
    let value: bigint | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 1) value = take(8);
    else if (wire === 5) value = take(4);
    else if (wire === 2) value = take(Number(varint()));
    else throw new Error(`unsupported wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

const bytes = (m: Map<number, (bigint | Buffer)[]>, f: number) => (m.get(f) ?? []) as Buffer[];

function protoAttributes(list: Buffer[]): Record<string, unknown> {
  // KeyValue { key = 1; AnyValue value = 2 }, AnyValue { string_value = 1; bool = 2; int = 3 }
  return Object.fromEntries(
    list.map((kv) => {
      const f = fields(kv);
      const value = fields(bytes(f, 2)[0] ?? Buffer.alloc(0));
      const raw = value.get(1)?.[0] ?? value.get(3)?.[0] ?? value.get(2)?.[0];
      return [bytes(f, 1)[0]?.toString('utf8'), Buffer.isBuffer(raw) ? raw.toString('utf8') : raw];
    }),
  );
}

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  // ExportTraceServiceRequest { resource_spans = 1 } ResourceSpans { resource = 1; scope_spans = 2 }
  for (const rs of bytes(fields(body), 1)) {
    const rsf = fields(rs);
    const resource = fields(bytes(rsf, 1)[0] ?? Buffer.alloc(0));
    const serviceName = protoAttributes(bytes(resource, 1))['service.name'];
    // ScopeSpans { spans = 2 }; Span { trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, attributes 9, events 11 }
    for (const ss of bytes(rsf, 2))
      for (const s of bytes(fields(ss), 2)) {
        const f = fields(s);
        out.push({
          traceId: bytes(f, 1)[0]?.toString('hex') ?? '',
          spanId: bytes(f, 2)[0]?.toString('hex') ?? '',
          parentSpanId: bytes(f, 4)[0]?.toString('hex') ?? '',
          name: bytes(f, 5)[0]?.toString('utf8') ?? '',
          kind: Number(f.get(6)?.[0] ?? 0),
          attributes: protoAttributes(bytes(f, 9)),
          events: bytes(f, 11).map((e) => bytes(fields(e), 2)[0]?.toString('utf8') ?? ''),
          serviceName,
        });
      }
  }
  return out;
}

export async function startFakeOtlpReceiver(): Promise<FakeOtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = String(req.headers['content-type'] ?? '');
      contentTypes.push(type);
      if (req.url === '/v1/traces') {
        spans.push(
          ...(type.includes('json') ? fromJson(JSON.parse(body.toString('utf8'))) : fromProtobuf(body)),
        );
      }
      res.writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : type });
      res.end(type.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => closeServer(server),
  };
}
