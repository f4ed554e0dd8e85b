// (e) The outbox relay: committed events to JetStream acks, as `onejob serve --role relay` does it.
import type { LoadResult } from '../measureLoad.js';
import type { Progress } from '../progress.js';
import { roleUnavailable } from './roleAvailable.js';

export const relayUnavailable = () => roleUnavailable('relay', 'outbox');

export interface RelayRun {
  databaseUrl: string;
  natsUrl: string;
  workDir: string;
  logLevel: string;
  workerConcurrency: number;
  events: number;
  warmupMs: number;
  durationMs: number;
  progress: Progress;
}

export async function relayThroughput(_r: RelayRun): Promise<LoadResult & { extra: Record<string, unknown> }> {
  throw new Error('relay scenario not wired yet');
}
