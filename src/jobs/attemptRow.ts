import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AttemptView } from './jobView.js';
import type { AttemptState } from './stateMachine.js';

export interface AttemptRow {
  id: string;
  job_id: string;
  n: number;
  provider: string;
  exclusive: boolean;
  origin: 'worker' | 'retry' | 'hedge' | 'manual' | 'reconcile';
  state: AttemptState;
  job_version: number;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  deadline_at: Date | null;
  started_at: Date;
  finished_at: Date | null;
  error: unknown;
  result_digest: string | null;
  usage: unknown;
  cost_micros: string | number | null;
}

export const ATTEMPT_COLUMNS =
  'id, job_id, n, provider, exclusive, origin, state, job_version, lease_owner, lease_expires_at, deadline_at, started_at, finished_at, error, result_digest, usage, cost_micros';

export function attemptView(row: AttemptRow): AttemptView {
  return {
    id: row.id,
    n: row.n,
    provider: row.provider,
    state: row.state,
    origin: row.origin,
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at ? row.finished_at.toISOString() : null,
    error: row.error ?? null,
    usage: row.usage ?? null,
    costMicros: row.cost_micros === null ? null : Number(row.cost_micros),
  };
}

/** SHA-256 of the canonical JSON of a discarded payload: proof of what arrived, without keeping it. */
export function payloadDigest(payload: unknown): string {
  const canonical =
    (canonicalize as unknown as (v: unknown) => string | undefined)(payload ?? null) ?? 'null';
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}
