// Runs HTTP scenarios in a separate load-generator process (bench/httpLoadWorker.ts).
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { HttpScenarioResult, HttpScenarioSpec } from './httpLoadWorker.js';

export interface HttpLoadClient {
  run(spec: HttpScenarioSpec): Promise<HttpScenarioResult>;
  close(): void;
}

export function startHttpLoadClient(): HttpLoadClient {
  const child: ChildProcess = fork(join(import.meta.dirname, 'httpLoadWorker.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    run(spec) {
      return new Promise((resolve, reject) => {
        const onExit = (code: number | null) => reject(new Error(`load generator exited (${code})`));
        child.once('exit', onExit);
        child.once(
          'message',
          (m: { ok: true; result: HttpScenarioResult } | { ok: false; error: string }) => {
            child.off('exit', onExit);
            if (m.ok) resolve(m.result);
            else reject(new Error(m.error));
          },
        );
        child.send(spec);
      });
    },
    close() {
      if (child.connected) child.disconnect();
    },
  };
}
