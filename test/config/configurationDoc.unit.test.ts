import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMPAT_DEFAULTS } from '../../src/compat/compatModels.js';
import { configSchema } from '../../src/config/configSchema.js';
import { DATABASE_DEFAULTS } from '../../src/db/poolerSettings.js';
import { HTTP_DEFAULTS, LIMIT_DEFAULTS } from '../../src/http/httpSettings.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../../src/inbox/signatureSchemes.js';
import { OPERATION_DEFAULTS } from '../../src/operations/operationRegistry.js';
import { OUTBOX_DEFAULTS } from '../../src/outbox/outboxSettings.js';
import { LOG_DEFAULTS } from '../../src/outbox/publishers/logPublisher.js';
import { NATS_DEFAULTS } from '../../src/outbox/publishers/natsPublisher.js';
import { RABBIT_DEFAULTS } from '../../src/outbox/publishers/rabbitPublisher.js';
import { WEBHOOK_DEFAULTS } from '../../src/outbox/publishers/webhookPublisher.js';
import { WORKER_DEFAULTS } from '../../src/worker/worker.js';

type Node = Record<string, unknown>;

/**
 * Every object of the schema that has named keys, by the section title docs/configuration.md
 * gives it: `providers.<name>` for a map's values, `outbox.publishers` for an array's items,
 * and ` (kind x)` for a branch of a kind union (the objects nested in it drop the kind).
 */
function collectSections(): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  const visit = (node: Node, path: string, title?: string) => {
    if (Array.isArray(node.oneOf)) {
      for (const branch of node.oneOf as Node[]) {
        const kind = ((branch.properties as Node).kind as Node).const as string;
        visit(branch, path, `${path} (kind ${kind})`);
      }
      return;
    }
    const properties = node.properties as Record<string, Node> | undefined;
    if (properties) {
      const name = title ?? (path || 'Top level');
      sections.set(name, [...new Set([...(sections.get(name) ?? []), ...Object.keys(properties)])]);
      for (const [key, child] of Object.entries(properties)) visit(child, path ? `${path}.${key}` : key);
    }
    if (node.additionalProperties && typeof node.additionalProperties === 'object')
      visit(node.additionalProperties as Node, `${path}.<name>`);
    if (node.items && typeof node.items === 'object') visit(node.items as Node, path);
  };
  visit(configSchema as unknown as Node, '');
  return sections;
}

interface DocRow {
  key: string;
  defaultCell: string;
}

/** The `###` sections of the doc's JSON-file part and their tables' rows. */
function docSections(): Map<string, DocRow[]> {
  const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  const part = doc.slice(doc.indexOf('## The JSON file'));
  const sections = new Map<string, DocRow[]>();
  let current: DocRow[] | undefined;
  for (const line of part.split('\n')) {
    const heading = /^### (.+)$/.exec(line);
    if (heading) {
      // "`outbox.publishers` (kind `nats`)" -> "outbox.publishers (kind nats)"
      current = [];
      sections.set(heading[1]!.replace(/`/g, '').trim(), current);
      continue;
    }
    const row = /^\|\s*`([^`]+)`\s*\|.*\|\s*([^|]*?)\s*\|$/.exec(line);
    if (row && current) current.push({ key: row[1]!, defaultCell: row[2]! });
  }
  return sections;
}

/** A default cell that states a value: a number, `true`/`false`, or a value in backticks. */
function statedDefault(cell: string): { value: unknown } | undefined {
  if (/^\d+$/.test(cell)) return { value: Number(cell) };
  const code = /^`([^`]*)`$/.exec(cell);
  if (!code) return undefined;
  try {
    return { value: JSON.parse(code[1]!) };
  } catch {
    return { value: code[1] };
  }
}

// The code's defaults, by doc section. A key with a default in the code must be documented
// with that value, and a value stated in the doc must come from here.
const CODE_DEFAULTS: Record<string, Record<string, unknown>> = {
  'operations.<name>': {
    effect: OPERATION_DEFAULTS.effect,
    attemptTimeoutMs: OPERATION_DEFAULTS.attemptTimeoutMs,
    maxAttempts: OPERATION_DEFAULTS.maxAttempts,
    abortLosers: OPERATION_DEFAULTS.abortLosers,
  },
  'operations.<name>.retry': OPERATION_DEFAULTS.retry,
  outbox: { ...OUTBOX_DEFAULTS },
  'outbox.publishers (kind nats)': NATS_DEFAULTS,
  'outbox.publishers (kind rabbitmq)': RABBIT_DEFAULTS,
  'outbox.publishers (kind webhook)': WEBHOOK_DEFAULTS,
  'outbox.publishers (kind log)': LOG_DEFAULTS,
  http: { ...HTTP_DEFAULTS },
  limits: { ...LIMIT_DEFAULTS },
  'inbox.sources.<name>': { toleranceSeconds: DEFAULT_TOLERANCE_SECONDS },
  database: { ...DATABASE_DEFAULTS },
  compat: { waitMs: COMPAT_DEFAULTS.waitMs, maxWaitMs: COMPAT_DEFAULTS.maxWaitMs },
  'compat.models.<name>': { ...COMPAT_DEFAULTS.model },
  worker: {
    concurrency: WORKER_DEFAULTS.concurrency,
    leaseMs: WORKER_DEFAULTS.leaseMs,
    pollMs: WORKER_DEFAULTS.pollMs,
    graceMs: WORKER_DEFAULTS.graceMs,
  },
};

// Sections whose stated defaults are not checked yet, with where the code keeps them.
const UNCHECKED_DEFAULTS: Record<string, string> = {
  intake: 'inline in src/jobs/createJobBatcher.ts; export them as constants to check them here',
};

describe('docs/configuration.md', () => {
  const schema = collectSections();
  const doc = docSections();

  it('documents every object of the config schema in a section of its own', () => {
    expect([...doc.keys()].sort()).toEqual([...schema.keys()].sort());
  });

  it.each([...schema.entries()])('section %s lists exactly the keys the schema accepts', (title, keys) => {
    expect((doc.get(title) ?? []).map((r) => r.key).sort()).toEqual([...keys].sort());
  });

  it.each(Object.entries(CODE_DEFAULTS))(
    'section %s states the defaults the code uses',
    (title, defaults) => {
      const rows = new Map((doc.get(title) ?? []).map((r) => [r.key, r.defaultCell]));
      for (const [key, value] of Object.entries(defaults)) {
        expect(rows.has(key), `${title}: ${key} has a default in the code`).toBe(true);
        expect(statedDefault(rows.get(key)!), `${title}: ${key}`).toEqual({ value });
      }
    },
  );

  it('states no default value the code does not have', () => {
    for (const [title, rows] of doc) {
      if (UNCHECKED_DEFAULTS[title]) continue;
      for (const row of rows) {
        const stated = statedDefault(row.defaultCell);
        if (!stated) continue;
        const defaults = CODE_DEFAULTS[title] ?? {};
        expect(Object.hasOwn(defaults, row.key), `${title}: ${row.key} states ${row.defaultCell}`).toBe(true);
      }
    }
  });
});
