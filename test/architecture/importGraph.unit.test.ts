// The layering of src/: every folder has its place in one ordered map, and imports only
// from its own level or below. The engine's parts receive narrow dependencies
// (src/engine/engineDeps.ts) instead of the engine, so no domain folder imports
// createOnejob.ts, src/ has no import cycles, and no function grows past what a reader
// can hold at once. The dashboard's browser modules count as src/ too. Runs without a
// database.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  functionLengths,
  importCycles,
  importGraph,
  type LayerMap,
  levelOf,
  SRC,
  upwardImports,
} from './sourceGraph.js';

/**
 * Base: what every part may use and what uses no part. A Base file imports Base files only.
 */
const BASE_FOLDERS = [
  'generated',
  'vocabulary',
  'errors',
  'time',
  'failpoints',
  'observability',
  'config',
  'contract',
  'db',
] as const;

/**
 * Who may import whom, lowest level first. A file imports from its own level or a lower
 * one; the longest entry naming a path decides its level. A folder or top-level file that
 * no entry names fails the test: a new one is placed here first.
 */
const LAYERS: LayerMap = [
  // Base; generated/ is written from migrations/*.sql and imports nothing
  ['generated'],
  ['vocabulary', 'errors', 'time', 'failpoints'],
  ['observability', 'config'],
  ['contract'],
  ['db'],
  // Domain, each folder above what it uses
  ['events'],
  // what an operation is: the registry, its definition by code, its input types
  ['operations'],
  ['compat'],
  // the narrow dependency types name the provider registry, and the gate takes them;
  // the input checks each operation kind adds use the providers' prompt rendering
  ['providers', 'engine/engineDeps.ts', 'operations/operationInputChecks.ts'],
  // the ledger uses Base only; budgets hold against it before a job's attempt calls out
  ['ledger'],
  ['budgets'],
  ['jobs'],
  ['inbox'],
  ['outbox'],
  ['worker'],
  // Doors: the engine's handles and roles
  // code operations run in process, as a provider whose calls the engine watches
  ['operations/code', 'engine/handles', 'engine/startRoles.ts'],
  // The engine: builds the parts and hands each what it uses
  ['engine', 'createOnejob.ts'],
  // Entry points
  ['client'],
  // the SDK drop-in's routes are an edge like the API's, kept with the drop-in's wire
  ['http', 'compat/routes'],
  ['dashboard'],
  ['http/buildServer.ts'],
  ['cli'],
  ['index.ts'],
];

const DOMAIN_FOLDERS = [
  'budgets',
  'events',
  'operations',
  'compat',
  'providers',
  'jobs',
  'ledger',
  'inbox',
  'outbox',
  'worker',
];

/**
 * Imports that go up the map today, 'from -> to'. This list only shrinks: an upward
 * import not listed fails the test.
 */
const KNOWN_UPWARD_IMPORTS: string[] = [];

/**
 * Cycles that remain, each listed with its files. This list only shrinks: a new cycle,
 * or a listed one that grew, fails the test.
 */
const KNOWN_CYCLES: string[][] = [];

/** About a screenful: past this a function is split into named parts. */
const MAX_FUNCTION_LINES = 120;
/** Functions still longer than that, with their length today; may only shrink. */
const KNOWN_LONG_FUNCTIONS: Record<string, number> = {};

/** Imports from a Base file to a file outside Base, as 'from -> to'. */
function baseIntoDomain(graph: Map<string, string[]>): string[] {
  const isBase = (path: string) => BASE_FOLDERS.some((folder) => path.startsWith(`${folder}/`));
  return [...graph]
    .filter(([file]) => isBase(file))
    .flatMap(([file, imports]) => imports.filter((i) => !isBase(i)).map((i) => `${file} -> ${i}`));
}

/** Folders and top-level files of src/ that the layer map does not place. */
function unplaced(graph: Map<string, string[]>, layers: LayerMap): string[] {
  return [
    ...new Set(
      [...graph.keys()].filter((f) => levelOf(layers, f) === undefined).map((f) => f.split('/')[0] ?? f),
    ),
  ];
}

function tooLong(
  lengths: { file: string; name: string; lines: number }[],
  known: Record<string, number>,
): string[] {
  return lengths
    .filter((f) => f.lines > MAX_FUNCTION_LINES)
    .filter((f) => f.lines > (known[`${f.file}#${f.name}`] ?? 0))
    .map((f) => `${f.file}#${f.name} (${f.lines} lines)`);
}

describe('the import graph of src/', () => {
  const graph = importGraph();
  const unlisted = (edges: string[]) => edges.filter((e) => !KNOWN_UPWARD_IMPORTS.includes(e));

  it('every folder and top-level file of src/ has a place in the layer map', () => {
    expect(unplaced(graph, LAYERS)).toEqual([]);
  });

  it('no Base folder imports a domain folder or anything above it', () => {
    expect(unlisted(baseIntoDomain(graph))).toEqual([]);
  });

  it('no folder imports from a level above its own', () => {
    expect(unlisted(upwardImports(graph, LAYERS))).toEqual([]);
  });

  it('no domain folder imports createOnejob.ts: the parts receive narrow dependencies', () => {
    const offenders = [...graph]
      .filter(([file]) => DOMAIN_FOLDERS.includes(file.split('/')[0] ?? ''))
      .filter(([, imports]) => imports.includes('createOnejob.ts'))
      .map(([file]) => file);
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

  it('sees the engine import its handles and the dashboard modules (the scanner reads src/)', () => {
    expect(graph.get('engine/createOnejob.ts')).toContain('engine/handles/attemptsHandle.ts');
    expect(graph.get('dashboard/assets/app.js')).toContain('dashboard/assets/view.js');
  });
});

describe('the import-graph checks themselves work', () => {
  it('finds a cycle when one exists', () => {
    const cyclic = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCycles(cyclic)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('finds a Base file importing a domain file', () => {
    const graph = new Map([
      ['config/loadConfig.ts', ['errors/OnejobError.ts', 'jobs/createJob.ts']],
      ['jobs/createJob.ts', ['config/types.ts']],
    ]);
    expect(baseIntoDomain(graph)).toEqual(['config/loadConfig.ts -> jobs/createJob.ts']);
  });

  it('finds an upward import, placing a file by its longest entry', () => {
    const layers: LayerMap = [['db'], ['jobs'], ['http'], ['http/buildServer.ts']];
    const graph = new Map([
      ['jobs/createJob.ts', ['db/createPool.ts', 'http/sendProblem.ts']],
      ['http/sendProblem.ts', ['jobs/createJob.ts']],
      ['http/buildServer.ts', ['http/sendProblem.ts']],
      ['http/routes/jobsRoutes.ts', ['http/buildServer.ts']],
    ]);
    expect(upwardImports(graph, layers)).toEqual([
      'jobs/createJob.ts -> http/sendProblem.ts',
      'http/routes/jobsRoutes.ts -> http/buildServer.ts',
    ]);
  });

  it('finds a folder the layer map does not place', () => {
    const graph = new Map([
      ['jobs/createJob.ts', []],
      ['stray/thing.ts', []],
      ['loose.ts', []],
    ]);
    expect(unplaced(graph, [['jobs']])).toEqual(['stray', 'loose.ts']);
  });

  it('measures functions in browser .js modules as well as .ts files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onejob-lengths-'));
    try {
      const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const v${i} = ${i};`).join('\n');
      writeFileSync(join(dir, 'long.js'), `export function long() {\n${body}\n}\n`);
      writeFileSync(join(dir, 'long.ts'), `export const long = (): void => {\n${body}\n};\n`);
      writeFileSync(join(dir, 'short.js'), 'export function short() {\n  return 1;\n}\n');
      writeFileSync(join(dir, 'app.js'), "import { short } from './short.js';\nshort();\n");
      expect(tooLong(functionLengths(dir), {}).sort()).toEqual([
        `long.js#long (${MAX_FUNCTION_LINES + 2} lines)`,
        `long.ts#<anonymous>:1 (${MAX_FUNCTION_LINES + 2} lines)`,
      ]);
      expect(tooLong(functionLengths(dir), { 'long.js#long': MAX_FUNCTION_LINES + 2 })).toEqual([
        `long.ts#<anonymous>:1 (${MAX_FUNCTION_LINES + 2} lines)`,
      ]);
      expect(importGraph(dir).get('app.js')).toEqual(['short.js']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('function length in src/ (.ts and the dashboard .js)', () => {
  it(`no function body is longer than ${MAX_FUNCTION_LINES} lines`, () => {
    expect(tooLong(functionLengths(), KNOWN_LONG_FUNCTIONS)).toEqual([]);
  });
});
