// docs/guarantees.md names, for each promise, the tests that hold it: `test/...test.ts`
// followed by the quoted names of its tests. Each named test must exist in that file, so a
// renamed or deleted test cannot leave a promise pointing at nothing. A name may be cut
// short with "..." (its start must match) and may wrap across lines in the table.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const doc = readFileSync(new URL('docs/guarantees.md', root), 'utf8');
const oneLine = (s: string) => s.replace(/\s+/g, ' ');

/** Each test file the doc cites with the names it quotes after it (`short`: cut with "..."). */
function citations(): { file: string; name: string; short: boolean }[] {
  const cited: { file: string; name: string; short: boolean }[] = [];
  // What follows a cited file, up to the next cited file or the end of the table cell.
  const byFile = /`(test\/[^`]+\.test\.ts)`:([^|]*?)(?=`test\/|`npm |\||$)/g;
  // A name ends at a quote followed by a comma, a semicolon, a colon, a parenthesis, "and"
  // or the segment's end; it may quote one phrase itself.
  const quoted = /"([^"|]+?(?:"[^"|,;]+"[^"|]*?)?)"(?=\s*(?:[,;:)(]|and\b|$))/g;
  // Table rows are one line each; a paragraph or a list item may wrap a name across lines.
  const blocks = doc
    .split(/\n\s*\n|\n(?=\s*- )/)
    .flatMap((b) => (b.trimStart().startsWith('|') ? b.split('\n') : [b]));
  for (const m of blocks.map(oneLine).flatMap((b) => [...b.matchAll(byFile)])) {
    for (const q of (m[2] as string).matchAll(quoted)) {
      const text = (q[1] as string).trim();
      const short = /(\.\.\.|…)$/.test(text);
      cited.push({ file: m[1] as string, name: text.replace(/;?\s*(\.\.\.|…)$/, '').trim(), short });
    }
  }
  return cited;
}

/** The test titles of a file, as written (a template literal keeps its `${...}`). */
function titles(source: string): string[] {
  const found: string[] = [];
  for (const m of oneLine(source).matchAll(
    /\b(?:it|test|describe)(?:\.\w+)*\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g,
  )) {
    found.push((m[2] as string).replace(/\\(.)/g, '$1'));
  }
  return found;
}

/** Whether `title` is the cited name: equal, a template's `${...}` matching any text, or starting with a name cut short. */
function names(title: string, name: string, short: boolean): boolean {
  if (short) return title.startsWith(name);
  const parts = title.split(/\$\{[^}]*\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`).test(name);
}

describe('docs/guarantees.md', () => {
  const cited = citations();

  it('cites tests by name', () => {
    expect(cited.length).toBeGreaterThan(40);
  });

  it('every test it cites exists, under that name, in the file it names', () => {
    const missing: string[] = [];
    const cache = new Map<string, string[]>();
    for (const { file, name, short } of cited) {
      let known = cache.get(file);
      if (!known) {
        known = titles(readFileSync(new URL(file, root), 'utf8'));
        cache.set(file, known);
      }
      if (!known.some((title) => names(title, name, short))) missing.push(`${file}: "${name}"`);
    }
    expect(missing).toEqual([]);
  });
});
