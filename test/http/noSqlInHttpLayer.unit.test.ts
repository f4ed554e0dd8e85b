import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The HTTP layer, the SDK drop-in's routes and the dashboard reach the database only
// through the engine's handles (onejob.jobs, .outbox, .inbox, .ledger, .providers, ...).
// SQL written here, or a domain write handed the pool, would be a second door into the
// domain, with its own copy of an owner filter to get wrong.

const root = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['src/http', 'src/compat/routes', 'src/dashboard'];

// Statement shapes rather than bare words, so prose such as an HTTP method name or a
// summary that says "update" does not count.
const SQL =
  /\bSELECT\b[\s\S]*\bFROM\b|\bSELECT\s+\d|\bINSERT\s+INTO\b|\bUPDATE\s+[\w."]+\s+SET\b|\bDELETE\s+FROM\b|\bWITH\s+\w+\s+AS\s*\(/;

function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Finding {
  file: string;
  line: number;
  what: string;
}

/** String literals and template pieces that read as SQL, calls to a `.query(...)` method, and any `.pool`. */
function sqlFindings(file: string, text: string): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Finding[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, what });
  const visit = (node: ts.Node) => {
    if (
      (ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node)) &&
      SQL.test(node.text)
    )
      at(node, `SQL text: ${node.text.trim().slice(0, 60)}`);
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'query'
    )
      at(node, `database call: ${node.getText(source).slice(0, 60)}`);
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'pool')
      at(node, `the engine's pool: ${node.getText(source).slice(0, 60)}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the HTTP layer goes through the handles', () => {
  it('no file in src/http, src/compat/routes or src/dashboard holds SQL, calls a database client or takes the pool', () => {
    const files = FOLDERS.flatMap(tsFiles);
    expect(files.length).toBeGreaterThan(10);
    const findings = files.flatMap((file) =>
      sqlFindings(relative(root, join(root, file)), readFileSync(join(root, file), 'utf8')),
    );
    expect(findings).toEqual([]);
  });

  it('the scan recognises SQL in strings, templates and query calls, and leaves prose alone', () => {
    const sample = [
      "const A = 'SELECT 1';",
      'const B = `SELECT d.publisher FROM onejob.outbox_deliveries d WHERE d.subject = $1`;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal, as the scanner reads it
      'const C = `UPDATE onejob.jobs SET state = ${s}`;',
      "const D = 'DELETE FROM onejob.inbox_events';",
      "const E = 'INSERT INTO onejob.ledger_entries (a) VALUES ($1)';",
      'await onejob.pool.query(A);',
      'await recordClientRetry(onejob.pool, id, retry);',
    ].join('\n');
    expect(sqlFindings('sample.ts', sample).map((f) => f.line)).toEqual([1, 2, 3, 4, 5, 6, 6, 7]);
    const prose = [
      "const method = 'DELETE';",
      "const summary = 'Select a job to update its state; delete nothing';",
      'const n = request.query.limit;',
    ].join('\n');
    expect(sqlFindings('prose.ts', prose)).toEqual([]);
  });
});
