// Child process that generates the HTTP load, so the client's CPU is not charged to the
// server process (both still share the machine's cores). Receives scenario specs over
// IPC and answers each with its LoadResult.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { type LoadResult, measureLoad } from './measureLoad.js';
import { silentProgress, stderrProgress } from './progress.js';

export type HttpScenarioSpec = {
  label: string;
  url: string;
  token: string;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  progress: boolean;
  keyPrefix: string;
} & (
  | { kind: 'create' }
  /** Replays keys `${keyPrefix}${0..keyCount-1}`, created earlier with the same body. */
  | { kind: 'replay'; keyCount: number }
  | { kind: 'storm'; stormSize: number }
);

export interface HttpScenarioResult extends LoadResult {
  /** Responses with Idempotent-Replayed: true. */
  replayed: number;
  /** Storm: keys fired at, and keys whose requests did not all get one job id, or got more than one "created". */
  stormKeys?: number;
  stormViolations?: number;
}

export const BENCH_BODY = JSON.stringify({ operation: 'noop', input: { amount: 1, note: 'bench' } });

export interface Reply {
  status: number;
  replayed: boolean;
  body: string;
}

/**
 * POSTs the bench job to `url`'s /v1/jobs under an idempotency key, on up to `sockets`
 * kept-alive connections; the reply's body is read only when asked for.
 */
export function jobPoster(spec: { url: string; token: string; sockets: number }) {
  const url = new URL('/v1/jobs', spec.url);
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: spec.sockets,
    maxFreeSockets: spec.sockets,
  });
  const length = String(Buffer.byteLength(BENCH_BODY));
  const post = (key: string, wantBody: boolean): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${spec.token}`,
            'content-type': 'application/json',
            'content-length': length,
            'idempotency-key': key,
          },
        },
        (res) => {
          let body = '';
          if (wantBody) res.setEncoding('utf8').on('data', (c: string) => (body += c));
          else res.resume();
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              replayed: res.headers['idempotent-replayed'] === 'true',
              body,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(BENCH_BODY);
    });
  return { post, close: () => agent.destroy() };
}

async function runScenario(spec: HttpScenarioSpec): Promise<HttpScenarioResult> {
  const { post, close } = jobPoster({ url: spec.url, token: spec.token, sockets: spec.concurrency });
  let replayed = 0;
  let stormKeys = 0;
  let stormViolations = 0;
  const progress = spec.progress ? stderrProgress() : silentProgress;
  const expect202 = (r: Reply) => {
    if (r.status !== 202) throw new Error(`HTTP ${r.status}: ${r.body.slice(0, 200)}`);
    if (r.replayed) replayed++;
  };
  // biome-ignore lint/suspicious/noConfusingVoidType: an operation returns nothing, or the latencies of its burst
  let op: (seq: number) => Promise<void | number[]>;
  let concurrency = spec.concurrency;
  if (spec.kind === 'create') {
    op = async (seq) => expect202(await post(`${spec.keyPrefix}${seq}`, false));
  } else if (spec.kind === 'replay') {
    const count = spec.keyCount;
    op = async (seq) => {
      const r = await post(`${spec.keyPrefix}${(seq * 7919) % count}`, false);
      expect202(r);
      if (!r.replayed) throw new Error('a replay created a new job');
    };
  } else {
    // One burst at a time: `stormSize` identical requests for a fresh key, all in flight at
    // once (the double click, the retrying proxy, the impatient SDK), each timed alone.
    concurrency = 1;
    const size = spec.stormSize;
    op = async (seq) => {
      const key = `${spec.keyPrefix}${seq}`;
      const replies = await Promise.all(
        Array.from({ length: size }, async () => {
          const t0 = performance.now();
          const r = await post(key, true);
          return { r, ms: performance.now() - t0 };
        }),
      );
      const ids = new Set<string>();
      let created = 0;
      for (const { r } of replies) {
        expect202(r);
        if (!r.replayed) created++;
        ids.add((JSON.parse(r.body) as { id: string }).id);
      }
      stormKeys++;
      if (ids.size !== 1 || created !== 1) stormViolations++;
      return replies.map((x) => x.ms);
    };
  }
  try {
    const result = await measureLoad({
      label: spec.label,
      concurrency,
      warmupMs: spec.warmupMs,
      durationMs: spec.durationMs,
      progress,
      op,
    });
    return spec.kind === 'storm'
      ? { ...result, replayed, stormKeys, stormViolations }
      : { ...result, replayed };
  } finally {
    close();
  }
}

if (process.send) {
  process.on('message', (spec: HttpScenarioSpec) => {
    runScenario(spec).then(
      (result) => process.send!({ ok: true, result }),
      (error: unknown) =>
        process.send!({ ok: false, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
