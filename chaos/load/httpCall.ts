// One recorded HTTP request: whatever happens (an answer, a refused connection, a timeout),
// the history gets exactly one ApiCall.
import type { ApiCall, CallKind } from '../history/types.js';

export interface CallSpec {
  client: string;
  kind: CallKind;
  owner: string;
  key: string;
  source?: string;
  target: { name: string; url: string };
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}

export interface CallAnswer {
  call: ApiCall;
  body: unknown;
}

export async function httpCall(spec: CallSpec, record: (call: ApiCall) => void): Promise<CallAnswer> {
  const startedAt = Date.now();
  const call: ApiCall = {
    client: spec.client,
    kind: spec.kind,
    owner: spec.owner,
    key: spec.key,
    target: spec.target.name,
    ...(spec.source ? { source: spec.source } : {}),
    startedAt,
    endedAt: startedAt,
    status: 0,
  };
  let body: unknown;
  try {
    const res = await fetch(spec.target.url + spec.path, {
      method: spec.method,
      headers: {
        ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...spec.headers,
      },
      body: spec.body,
      signal: AbortSignal.timeout(spec.timeoutMs ?? 10_000),
    });
    call.status = res.status;
    const text = await res.text();
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const b = body as { code?: unknown; id?: unknown; jobId?: unknown } | undefined;
    if (typeof b?.code === 'string') call.code = b.code;
    if (res.headers.get('idempotent-replayed') === 'true') call.replayed = true;
    if (spec.kind === 'create' && res.status === 202 && typeof b?.id === 'string') call.jobId = b.id;
    if (spec.kind === 'inbox' && res.status === 202 && typeof b?.jobId === 'string') call.jobId = b.jobId;
  } catch {
    // No answer: the process died, or did not answer in time. The client may retry.
    call.status = 0;
  }
  call.endedAt = Date.now();
  record(call);
  return { call, body };
}
