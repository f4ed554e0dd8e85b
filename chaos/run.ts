// npm run chaos -- [--duration 10m] [--seed N] [--calm 30s] [--api 2 --workers 2 --relays 1 --library 1]
//                  [--database embedded|system] [--clients 6] [--faults KIND,KIND]
//                  [--replica [--synchronous-commit on|local]] [--scale]
// npm run chaos -- --soak 30m [--rate N] [--sample-every 1m] [--capacity-probe 30s] [--chart docs/soak.svg]
//                  [--node-defaults]
// Runs the chaos harness (or, with --scale, the worker scale-out runs; with --soak, steady
// load without faults, sampled and charted) and exits non-zero on any violation or a
// failed soak, printing the seed to replay.
import { join } from 'node:path';
import { killAllManaged } from './cluster/managedProcess.js';
import { parseFaultKinds } from './faults/faultKinds.js';
import { runChaos } from './runChaos.js';
import { runScale } from './scale/runScale.js';
import { runSoak } from './soak/runSoak.js';

function duration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text);
  if (!m) throw new Error(`"${text}" is not a duration (like 90s, 10m, 500ms)`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
}

function args(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) out.set(a.slice(2), 'true');
    else {
      out.set(a.slice(2), next);
      i++;
    }
  }
  return out;
}

const stopAll = (signal: string) => {
  process.stderr.write(`chaos: ${signal}, stopping every process\n`);
  killAllManaged();
  process.exit(130);
};
process.once('SIGINT', () => stopAll('SIGINT'));
process.once('SIGTERM', () => stopAll('SIGTERM'));
process.on('exit', killAllManaged);

const a = args(process.argv.slice(2));
const seed = a.has('seed') ? Number(a.get('seed')) : Math.floor(Math.random() * 1_000_000);
const resultsDir = join(import.meta.dirname, 'results');
const total = duration(a.get('duration') ?? '2m');
const calm = a.has('calm') ? duration(a.get('calm')!) : Math.min(30_000, Math.round(total * 0.2));
const processes = {
  api: Number(a.get('api') ?? 2),
  worker: Number(a.get('workers') ?? 2),
  relay: Number(a.get('relays') ?? 1),
};
const database = (a.get('database') ?? 'embedded') as 'embedded' | 'system';
let faultKinds: ReturnType<typeof parseFaultKinds> | undefined;
try {
  faultKinds = a.has('faults') ? parseFaultKinds(a.get('faults')!) : undefined;
} catch (error) {
  process.stderr.write(`chaos: ${(error as Error).message}\n`);
  process.exit(2);
}
// A standby runs when asked, and by default when the schedule names the failover fault.
const replica = a.has('replica')
  ? a.get('replica') !== 'false'
  : (faultKinds?.includes('primary_failover') ?? false);

try {
  if (a.has('scale')) {
    await runScale({
      seed,
      resultsDir,
      database: a.has('database') ? database : 'system',
      jobs: Number(a.get('jobs') ?? 600),
    });
    process.exit(0);
  }
  if (a.has('soak')) {
    const soak = await runSoak({
      seed,
      durationMs: duration(a.get('soak')!),
      ...(a.has('rate') ? { ratePerSecond: Number(a.get('rate')) } : {}),
      sampleEveryMs: duration(a.get('sample-every') ?? '1m'),
      capacityProbeMs: duration(a.get('capacity-probe') ?? '30s'),
      clients: Number(a.get('clients') ?? 6),
      processes,
      library: Number(a.get('library') ?? 1),
      database,
      resultsDir,
      ...(a.has('chart') ? { chartPath: a.get('chart')! } : {}),
      // Node's own heap sizing instead of the pinned young generation (runSoak.ts).
      ...(a.has('node-defaults') ? { nodeFlags: [] } : {}),
      command: `npm run chaos -- ${process.argv.slice(2).join(' ')}${a.has('seed') ? '' : ` --seed ${seed}`}`,
    });
    process.exit(soak.verdict.passed && soak.violations === 0 ? 0 : 1);
  }
  const outcome = await runChaos({
    seed,
    faultMs: total - calm,
    calmMs: calm,
    processes,
    database,
    clients: Number(a.get('clients') ?? 6),
    library: Number(a.get('library') ?? 1),
    ...(faultKinds ? { faultKinds } : {}),
    replica,
    ...(a.has('synchronous-commit')
      ? { synchronousCommit: a.get('synchronous-commit') as 'on' | 'local' | 'off' }
      : {}),
    resultsDir,
  });
  if (outcome.resultFile) process.stdout.write(`results: ${outcome.resultFile}\n`);
  process.exit(outcome.report.violations.length === 0 ? 0 : 1);
} catch (error) {
  process.stderr.write(`chaos run with seed ${seed} failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(2);
}
