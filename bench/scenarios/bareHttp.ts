// The HTTP ceiling (b-http): the bench's load client against bareHttpServer.ts, which sends
// a fixed reply the size of onejob's, in a process of its own. What onejob's replay (b)
// reaches is read against it as well as against pgbench's lookup (f-lookup): on two cores
// shared by the server, its load client and PostgreSQL, HTTP itself may stay under a
// target set against a C client talking straight to PostgreSQL.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { HttpLoadClient } from '../httpLoadClient.js';
import type { HttpScenarioResult } from '../httpLoadWorker.js';

interface BareHttpRun {
  client: HttpLoadClient;
  /** The reply to send: onejob's own reply to the replayed request, so both write as many bytes. */
  body: string;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  progress: boolean;
  keyCount: number;
}

export async function bareHttpReplay(r: BareHttpRun): Promise<HttpScenarioResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'bareHttpServer.ts')], {
    env: { ...process.env, BARE_HTTP_BODY: r.body },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const found = /^listening (\S+)$/m.exec(out)?.[1];
        if (found) resolve(found);
      });
      child.once('exit', (code) => reject(new Error(`the bare HTTP server exited (${code})`)));
    });
    return (await r.client.run({
      kind: 'replay',
      label: 'bare HTTP',
      url,
      token: 'unused',
      concurrency: r.concurrency,
      warmupMs: r.warmupMs,
      durationMs: r.durationMs,
      progress: r.progress,
      keyPrefix: 'bare-',
      keyCount: r.keyCount,
    })) as HttpScenarioResult;
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
}
