import { describe, expect, it } from 'vitest';
import { buildFaultSchedule, FAILPOINTS } from '../../chaos/faults/buildFaultSchedule.js';
import { FAULT_KINDS, parseFaultKinds } from '../../chaos/faults/faultKinds.js';
import { createRng } from '../../chaos/random/createRng.js';

const options = {
  durationMs: 240_000,
  processes: { api: 2, worker: 2, relay: 1 },
  natsNodes: 3,
  postgresRestart: true,
  inference: true,
};

describe('fault schedule', () => {
  it('is the same for the same seed and differs for another seed', () => {
    const a = buildFaultSchedule({ ...options, seed: 42 });
    expect(buildFaultSchedule({ ...options, seed: 42 })).toEqual(a);
    expect(buildFaultSchedule({ ...options, seed: 43 })).not.toEqual(a);
  });

  it('injects every kind of fault and every failpoint in a long enough run', () => {
    const plan = buildFaultSchedule({ ...options, seed: 1 });
    const kinds = new Set(plan.map((f) => f.kind));
    expect([...kinds].sort()).toEqual(
      [
        'failpoint_kill',
        'nats_node_restart',
        'nats_node_stall',
        'postgres_restart',
        'postgres_stall',
        'process_kill',
        'provider_late',
        'provider_stall',
        'relay_batch_kill',
      ].sort(),
    );
    const failpoints = new Set(
      plan.filter((f) => f.kind === 'failpoint_kill').map((f) => f.target.split('@')[0]),
    );
    expect([...failpoints].sort()).toEqual(Object.keys(FAILPOINTS).sort());
  });

  it('never targets a process that does not exist and stays inside the fault phase', () => {
    for (let seed = 0; seed < 50; seed++) {
      for (const f of buildFaultSchedule({ ...options, seed, postgresRestart: false, inference: false })) {
        expect(f.kind).not.toBe('postgres_restart');
        expect(f.kind).not.toBe('postgres_stall');
        expect(f.kind).not.toBe('provider_late');
        expect(f.atMs).toBeLessThan(options.durationMs);
        const m = /(api|worker|relay)-(\d+)$/.exec(f.target);
        if (m) expect(Number(m[2])).toBeLessThanOrEqual(options.processes[m[1] as 'api']);
      }
    }
  });

  it('the failover fault is drawn only when a standby runs', () => {
    for (let seed = 0; seed < 20; seed++)
      expect(buildFaultSchedule({ ...options, seed }).some((f) => f.kind === 'primary_failover')).toBe(false);
    const kinds = new Set(buildFaultSchedule({ ...options, seed: 1, replica: true }).map((f) => f.kind));
    expect(kinds.has('primary_failover')).toBe(true);
  });

  it('--faults restricts the schedule to the named kinds, each drawn at least once', () => {
    for (let seed = 0; seed < 20; seed++) {
      const plan = buildFaultSchedule({
        ...options,
        seed,
        replica: true,
        kinds: ['primary_failover', 'process_kill'],
      });
      expect(plan.length).toBeGreaterThan(10);
      expect([...new Set(plan.map((f) => f.kind))].sort()).toEqual(['primary_failover', 'process_kill']);
    }
    const only = buildFaultSchedule({ ...options, seed: 3, kinds: ['failpoint_kill'] });
    expect(new Set(only.map((f) => f.kind))).toEqual(new Set(['failpoint_kill']));
    // Every failpoint still comes first, before random ones fill the phase.
    expect(new Set(only.slice(0, 6).map((f) => f.target.split('@')[0]))).toEqual(
      new Set(Object.keys(FAILPOINTS)),
    );
  });

  it('refuses a named kind this run cannot inject, saying what it needs', () => {
    expect(() =>
      buildFaultSchedule({ ...options, seed: 1, kinds: ['primary_failover', 'process_kill'] }),
    ).toThrow(/primary_failover \(needs a synchronous standby \(--replica\)\)/);
    expect(() =>
      buildFaultSchedule({ ...options, seed: 1, postgresRestart: false, kinds: ['postgres_stall'] }),
    ).toThrow(/postgres_stall \(needs a PostgreSQL the run owns/);
  });

  it('parses --faults and refuses an unknown kind, listing the known ones', () => {
    expect(parseFaultKinds('primary_failover,process_kill')).toEqual(['primary_failover', 'process_kill']);
    expect(parseFaultKinds(' process_kill , process_kill ')).toEqual(['process_kill']);
    expect(() => parseFaultKinds('process_kill,db_meltdown')).toThrow(
      `unknown fault kind "db_meltdown"; known kinds: ${FAULT_KINDS.join(', ')}`,
    );
    expect(() => parseFaultKinds(',')).toThrow(/known kinds: failpoint_kill, process_kill/);
  });

  it('the PRNG replays the same sequence from the same seed', () => {
    const a = createRng(9);
    const b = createRng(9);
    const xs = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
