// Runs around every test file (vitest setupFiles). After the file, it fails when the file
// left a pg Pool open or a client checked out of one, or left handles (sockets, servers,
// timers, child processes) that were not there before it started: a leak in one file
// slows or hangs the run and hides bugs in shutdown code. When a test fails, the
// databases of the file are kept and named, so the failure can be looked at.
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { keepTestDatabases } from './testDatabase.js';
import { until } from './until.js';

const pools = new Set<pg.Pool>();
const connect = pg.Pool.prototype.connect;
// Every query goes through connect(), so this sees each pool the file uses.
pg.Pool.prototype.connect = function (this: pg.Pool, ...args: unknown[]) {
  pools.add(this);
  return (connect as (...a: unknown[]) => unknown).apply(this, args);
} as typeof connect;

/**
 * Handles left behind on purpose, by file, each with the reason. Keep it short: fix the
 * leak when it is small.
 */
const ALLOWED: Record<string, string> = {};

let baseline: Map<string, number>;
let failed = false;

const resources = () => {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
};

function extraResources(): string[] {
  const extra: string[] = [];
  for (const [kind, n] of resources()) {
    const more = n - (baseline.get(kind) ?? 0);
    // The idle timer of a test runner reporting progress comes and goes; sockets, servers and processes do not.
    if (more > 0 && kind !== 'Timeout' && kind !== 'TTYWrap') extra.push(`${more} × ${kind}`);
  }
  return extra;
}

function poolLeaks(): string[] {
  const leaks: string[] = [];
  for (const pool of pools) {
    const p = pool as pg.Pool & { ending?: boolean; ended?: boolean };
    const checkedOut = pool.totalCount - pool.idleCount;
    if (checkedOut > 0) leaks.push(`a pg Pool has ${checkedOut} client(s) still checked out`);
    else if (!p.ending && !p.ended)
      leaks.push('a pg Pool was never ended (call pool.end() or onejob.close())');
  }
  return leaks;
}

beforeAll(() => {
  baseline = resources();
});

beforeEach((context) => {
  context.onTestFailed(() => {
    failed = true;
    keepTestDatabases(context.task.name);
  });
});

afterAll(async () => {
  // A failed test may stop half-way, leaving what it would have closed: its failure is the news.
  if (failed) return;
  const file = (expect.getState().testPath ?? '').replace(/^.*?\/(test|examples|src)\//, '$1/');
  if (ALLOWED[file]) return;
  // Closing is asynchronous (a socket's close callback runs on a later tick), so wait until
  // the handles are gone, up to a bound, rather than judging in the same tick.
  const leaks = await until(
    'the file to release its pools and handles',
    async () => {
      const now = [...poolLeaks(), ...extraResources()];
      return now.length === 0 ? [] : undefined;
    },
    3_000,
  ).catch(() => [...poolLeaks(), ...extraResources()]);
  if (leaks.length) throw new Error(`${file} leaked after its tests: ${leaks.join('; ')}`);
});
