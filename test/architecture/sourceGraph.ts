// Reads src/ with the TypeScript compiler: which file imports which (type-only imports
// included: they tie the parts together as much as value imports do), and how long each
// function body is. The dashboard's browser modules (src/dashboard/assets/*.js) are read
// too: they are source like the rest, only served as they are.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const SRC = fileURLToPath(new URL('../../src', import.meta.url));

export function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    const source =
      (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) || entry.name.endsWith('.js');
    return source ? [path] : [];
  });
}

/** The file an import names: `./x.js` is `x.ts` in TypeScript source, `x.js` among the browser modules. */
function resolveImport(file: string, specifier: string): string {
  const target = resolve(dirname(file), specifier);
  const asTs = target.replace(/\.js$/, '.ts');
  return existsSync(asTs) || !existsSync(target) ? asTs : target;
}

/** src-relative path ('worker/worker.ts') of every file, with the src files it imports. */
export function importGraph(dir = SRC): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(dir)) {
    const text = readFileSync(file, 'utf8');
    const specifiers = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
    const targets = specifiers
      .filter((s) => s.startsWith('.'))
      .map((s) => relative(dir, resolveImport(file, s)));
    graph.set(relative(dir, file), [...new Set(targets)]);
  }
  return graph;
}

/** An ordered layer map: each level a list of src-relative folders or files, lowest level first. */
export type LayerMap = readonly (readonly string[])[];

/** The level of a src-relative path: its longest entry in the map, or undefined when none names it. */
export function levelOf(layers: LayerMap, path: string): number | undefined {
  let best: { level: number; length: number } | undefined;
  layers.forEach((entries, level) => {
    for (const entry of entries) {
      const matches = path === entry || path.startsWith(`${entry}/`);
      if (matches && (!best || entry.length > best.length)) best = { level, length: entry.length };
    }
  });
  return best?.level;
}

/** Every import from a lower level to a higher one, as 'from -> to'. */
export function upwardImports(graph: Map<string, string[]>, layers: LayerMap): string[] {
  return [...graph].flatMap(([file, imports]) =>
    imports
      .filter(
        (target) => (levelOf(layers, target) ?? -1) > (levelOf(layers, file) ?? Number.POSITIVE_INFINITY),
      )
      .map((target) => `${file} -> ${target}`),
  );
}

/** Strongly connected components with more than one file (or a file importing itself). */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return cycles;
}

export interface FunctionLength {
  file: string;
  name: string;
  lines: number;
}

/** Every function, method and arrow function in src/ with the number of lines its body spans. */
export function functionLengths(dir = SRC): FunctionLength[] {
  const found: FunctionLength[] = [];
  for (const file of sourceFiles(dir)) {
    const kind = file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, kind);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const body = node.body as ts.Node;
        const start = source.getLineAndCharacterOfPosition(body.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(body.getEnd()).line;
        const name =
          'name' in node && node.name && ts.isIdentifier(node.name as ts.Node)
            ? (node.name as ts.Identifier).text
            : `<anonymous>:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
        found.push({ file: relative(dir, file), name, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
