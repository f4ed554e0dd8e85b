// Reads src/ with the TypeScript compiler: which file imports which (type-only imports
// included: they tie the parts together as much as value imports do), and how long each
// function body is.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const SRC = fileURLToPath(new URL('../../src', import.meta.url));

export function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** src-relative path ('attempts/worker.ts') of every file, with the src files it imports. */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    const text = readFileSync(file, 'utf8');
    const specifiers = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
    const targets = specifiers
      .filter((s) => s.startsWith('.'))
      .map((s) => relative(SRC, resolve(dirname(file), s.replace(/\.js$/, '.ts'))));
    graph.set(relative(SRC, file), [...new Set(targets)]);
  }
  return graph;
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
export function functionLengths(): FunctionLength[] {
  const found: FunctionLength[] = [];
  for (const file of sourceFiles()) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const body = node.body as ts.Node;
        const start = source.getLineAndCharacterOfPosition(body.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(body.getEnd()).line;
        const name =
          'name' in node && node.name && ts.isIdentifier(node.name as ts.Node)
            ? (node.name as ts.Identifier).text
            : `<anonymous>:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
        found.push({ file: relative(SRC, file), name, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
