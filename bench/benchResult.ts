// The shape of one bench run, as printed and as written to bench/results/<timestamp>.json.
import type { LoadResult } from './measureLoad.js';

export interface ScenarioRecord {
  id: string;
  title: string;
  status: 'ok' | 'skipped' | 'failed';
  /** Why a scenario was skipped or failed, or what else it found (storm violations). */
  note?: string;
  concurrency?: number;
  result?: LoadResult;
  /** Peak RSS of the onejob server process while this scenario ran. */
  serverRssMb?: number;
  extra?: Record<string, unknown>;
}

export interface TargetRecord {
  id: string;
  description: string;
  /** Measured value: a ratio, ms or MB (see unit). Undefined when an input is missing. */
  value: number | undefined;
  threshold: number;
  unit: 'x' | 'ms' | 'MB';
  /** At least the threshold (ratios; at most, for the per-job write ratios) or below it (ms, MB). */
  pass: boolean | undefined;
}

export interface BenchRun {
  startedAt: string;
  finishedAt: string;
  machine: { nproc: number; cpu: string; memTotalMb: number; node: string; postgres: string; kernel: string };
  options: Record<string, unknown>;
  scenarios: ScenarioRecord[];
  targets: TargetRecord[];
}
