// The soak's verdict: memory and backlog stay flat. RSS of every process may grow by less
// than 10 % from the baseline sample (minute 5, or 40 % into a soak shorter than ten
// minutes: the warm-up before it does not count) to the last one; the outbox backlog and
// the open jobs stay under ten seconds of intake at every sample after the first minute;
// no process stops answering its probe.
import type { SoakSample } from './sampleCluster.js';

export interface SoakVerdict {
  passed: boolean;
  baselineAtMs: number;
  rssGrowth: Record<string, number>;
  maxBacklog: number;
  maxOpenJobs: number;
  backlogLimit: number;
  reasons: string[];
}

export const RSS_GROWTH_LIMIT = 0.1;

export function judgeSoak(samples: SoakSample[], ratePerSecond: number): SoakVerdict {
  const reasons: string[] = [];
  const last = samples.at(-1);
  const span = last?.atMs ?? 0;
  const baselineAt = span >= 10 * 60_000 ? 5 * 60_000 : span * 0.4;
  const baseline = samples.find((s) => s.atMs >= baselineAt) ?? samples[0];
  const rssGrowth: Record<string, number> = {};
  if (!baseline || !last || baseline === last) reasons.push('too few samples to judge growth');
  else {
    for (const [name, base] of Object.entries(baseline.processes)) {
      const end = last.processes[name];
      if (!base || !end) {
        reasons.push(`${name} did not answer its probe at the baseline or the last sample`);
        continue;
      }
      const growth = (end.rssMb - base.rssMb) / base.rssMb;
      rssGrowth[name] = Math.round(growth * 1000) / 10;
      if (growth >= RSS_GROWTH_LIMIT)
        reasons.push(`${name} RSS grew ${rssGrowth[name]} % (${base.rssMb} MB to ${end.rssMb} MB)`);
    }
  }
  const backlogLimit = Math.max(200, Math.round(ratePerSecond * 10));
  const judged = samples.filter((s) => s.atMs >= 60_000 || s === last);
  const maxBacklog = Math.max(0, ...judged.map((s) => s.outboxBacklog));
  const maxOpenJobs = Math.max(0, ...judged.map((s) => s.openJobs));
  if (maxBacklog > backlogLimit) reasons.push(`outbox backlog reached ${maxBacklog} (limit ${backlogLimit})`);
  if (maxOpenJobs > backlogLimit) reasons.push(`open jobs reached ${maxOpenJobs} (limit ${backlogLimit})`);
  for (const s of samples)
    for (const [name, p] of Object.entries(s.processes))
      if (!p) reasons.push(`${name} did not answer its probe at ${Math.round(s.atMs / 1000)} s`);
  return {
    passed: reasons.length === 0,
    baselineAtMs: baseline?.atMs ?? 0,
    rssGrowth,
    maxBacklog,
    maxOpenJobs,
    backlogLimit,
    reasons,
  };
}
