// The layering of src/: the engine's parts receive narrow dependencies
// (src/engine/engineDeps.ts) instead of the engine, so no domain folder imports
// createOnejob.ts, src/ has no import cycles, and no function grows past what a reader
// can hold at once. Runs without a database.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionLengths, importCycles, importGraph, SRC } from './sourceGraph.js';

const DOMAIN_FOLDERS = ['jobs', 'attempts', 'outbox', 'inbox', 'ledger', 'providers', 'library'];

/**
 * Cycles that remain, each listed with its files. This list only shrinks: a new cycle,
 * or a listed one that grew, fails the test.
 */
const KNOWN_CYCLES: string[][] = [];

/** About a screenful and a half: past this a function is split into named parts. */
const MAX_FUNCTION_LINES = 150;
/** Functions still longer than that, with their length today; may only shrink. */
const KNOWN_LONG_FUNCTIONS: Record<string, number> = {};

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('no domain folder imports createOnejob.ts: the parts receive narrow dependencies', () => {
    const offenders = [...graph]
      .filter(([file]) => DOMAIN_FOLDERS.includes(file.split('/')[0] ?? ''))
      .filter(([, imports]) => imports.includes('createOnejob.ts'))
      .map(([file]) => file);
    expect(offenders).toEqual([]);
  });

  it('the domain imports nothing above it: no handles, routes, dashboard, service or CLI', () => {
    const above = [
      'library/',
      'http/',
      'dashboard/',
      'service/',
      'cli/',
      'demo/',
      'createOnejob.ts',
      'engine/',
    ];
    const offenders = [...graph]
      .filter(([file]) => DOMAIN_FOLDERS.includes(file.split('/')[0] ?? '') && !file.startsWith('library/'))
      .flatMap(([file, imports]) =>
        imports
          .filter((i) => i !== 'engine/engineDeps.ts' && above.some((a) => i.startsWith(a)))
          .map((i) => `${file} -> ${i}`),
      );
    expect(offenders).toEqual([]);
  });

  it('engine/engineDeps.ts imports types only', () => {
    const text = readFileSync(join(SRC, 'engine/engineDeps.ts'), 'utf8');
    const valueImports = text.split('\n').filter((l) => /^import (?!type )/.test(l));
    expect(valueImports).toEqual([]);
  });

  it('has no import cycles beyond the known, shrinking list', () => {
    const known = new Set(KNOWN_CYCLES.map((c) => [...c].sort().join(' -> ')));
    const unexpected = importCycles(graph)
      .map((c) => c.join(' -> '))
      .filter((c) => !known.has(c));
    expect(unexpected).toEqual([]);
  });

  it('finds a cycle when one exists (the check itself works)', () => {
    const cyclic = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCycles(cyclic)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('sees the engine import its handles (the scanner reads src/)', () => {
    expect(graph.get('engine/createOnejob.ts')).toContain('engine/handles/attemptsHandle.ts');
  });
});

describe('function length in src/', () => {
  it(`no function body is longer than ${MAX_FUNCTION_LINES} lines`, () => {
    const long = functionLengths()
      .filter((f) => f.lines > MAX_FUNCTION_LINES)
      .filter((f) => f.lines > (KNOWN_LONG_FUNCTIONS[`${f.file}#${f.name}`] ?? 0))
      .map((f) => `${f.file}#${f.name} (${f.lines} lines)`);
    expect(long).toEqual([]);
  });
});
