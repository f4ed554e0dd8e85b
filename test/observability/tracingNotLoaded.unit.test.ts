// Without an OTLP endpoint nothing of OpenTelemetry is loaded: no module reachable by
// static imports from the entry points imports @opentelemetry (only a dynamic import()
// in configureTracing reaches it), and configuring tracing without the variables keeps
// the no-op.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { configureTracing, tracingRequested } from '../../src/observability/tracing/configureTracing.js';
import { noopTracing, tracing } from '../../src/observability/tracing/tracing.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY_POINTS = [
  'src/index.ts',
  'src/client/index.ts',
  'src/cli/main.ts',
  'src/cli/serve/startService.ts',
];

/** Specifiers of the static, value-level imports and re-exports of a file (type-only ones are erased). */
function staticImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, false);
  const out: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly)
      out.push((statement.moduleSpecifier as ts.StringLiteral).text);
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly)
      out.push((statement.moduleSpecifier as ts.StringLiteral).text);
  }
  return out;
}

/** Every module loaded at start-up: relative imports followed, packages collected. */
function staticGraph(): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = ENTRY_POINTS.map((e) => resolve(root, e));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of staticImports(file)) {
      if (specifier.startsWith('.')) queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else packages.add(specifier);
    }
  }
  return { files, packages };
}

describe('tracing without an OTLP endpoint', () => {
  it('no module the entry points load statically imports @opentelemetry', () => {
    const { files, packages } = staticGraph();
    expect(files.size).toBeGreaterThan(50);
    expect([...packages].filter((p) => p.startsWith('@opentelemetry'))).toEqual([]);
    expect(files.has(resolve(root, 'src/observability/tracing/otelTracing.ts'))).toBe(false);
    expect(files.has(resolve(root, 'src/observability/tracing/configureTracing.ts'))).toBe(true);
  });

  it('configuring tracing without the variables keeps the no-op', async () => {
    expect(tracingRequested({})).toBe(false);
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false);
    await configureTracing({});
    expect(tracing()).toBe(noopTracing);
    expect(tracing().start('x').traceparent).toBeUndefined();
  });
});
