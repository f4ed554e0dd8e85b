import { describe, expect, it } from 'vitest';
import { sessionPerFile } from '../helpers/sessionPerFile.js';

const DISTRIBUTION_COLUMN = 'owner_id';

/** Tables without an owner: small, global, written rarely; each would be a Citus reference table. */
const REFERENCE_TABLES = [
  'migrations',
  'outbox_publishers',
  'provider_verifications',
  'consumer_inbox',
  'provider_slots',
  'provider_pauses',
];

const client = sessionPerFile();

interface TableRow {
  table: string;
  tenant: boolean;
}

async function tables(): Promise<TableRow[]> {
  const { rows } = await client().query<TableRow>(
    `SELECT c.relname AS table,
            EXISTS (SELECT 1 FROM pg_attribute a
                    WHERE a.attrelid = c.oid AND a.attname = $1 AND NOT a.attisdropped) AS tenant
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'onejob' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
     ORDER BY 1`,
    [DISTRIBUTION_COLUMN],
  );
  return rows;
}

/** Every unique index (primary keys and unique constraints have one too), partial ones included. */
async function uniqueIndexes(): Promise<{ table: string; index: string; columns: string[] }[]> {
  const { rows } = await client().query<{ table: string; index: string; columns: string[] }>(
    `SELECT t.relname AS table, i.relname AS index,
            array_agg(a.attname ORDER BY k.ord)::text[] AS columns
     FROM pg_index x
     JOIN pg_class t ON t.oid = x.indrelid
     JOIN pg_class i ON i.oid = x.indexrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
     LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
     WHERE n.nspname = 'onejob' AND x.indisunique
     GROUP BY t.relname, i.relname
     ORDER BY 1, 2`,
  );
  return rows;
}

async function foreignKeys(): Promise<
  { table: string; name: string; columns: string[]; references: string; referenced: string[] }[]
> {
  const { rows } = await client().query(
    `SELECT t.relname AS table, c.conname AS name, r.relname AS references,
            (SELECT array_agg(a.attname ORDER BY k.ord)::text[] FROM unnest(c.conkey) WITH ORDINALITY k(n, ord)
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS columns,
            (SELECT array_agg(a.attname ORDER BY k.ord)::text[] FROM unnest(c.confkey) WITH ORDINALITY k(n, ord)
             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS referenced
     FROM pg_constraint c
     JOIN pg_class t ON t.oid = c.conrelid
     JOIN pg_class r ON r.oid = c.confrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = 'onejob' AND c.contype = 'f'
     ORDER BY 1, 2`,
  );
  return rows;
}

/** Everything that would make `create_distributed_table(..., 'owner_id')` refuse, one line each. */
async function blockers(): Promise<string[]> {
  const all = await tables();
  const tenant = new Set(all.filter((t) => t.tenant).map((t) => t.table));
  const found: string[] = [];
  for (const u of await uniqueIndexes()) {
    // An expression index has a null column name: it cannot name the distribution column.
    if (tenant.has(u.table) && !u.columns.includes(DISTRIBUTION_COLUMN))
      found.push(`${u.table}.${u.index}: unique (${u.columns.join(', ')}) lacks ${DISTRIBUTION_COLUMN}`);
  }
  for (const f of await foreignKeys()) {
    const from = tenant.has(f.table);
    const to = tenant.has(f.references);
    if (from && to) {
      // Co-located rows join on the distribution column, at the same position on both sides.
      const at = f.columns.indexOf(DISTRIBUTION_COLUMN);
      if (at < 0 || f.referenced[at] !== DISTRIBUTION_COLUMN)
        found.push(
          `${f.table}.${f.name}: foreign key to ${f.references} does not join on ${DISTRIBUTION_COLUMN}`,
        );
    } else if (!from && to) {
      found.push(
        `${f.table}.${f.name}: foreign key from a table without owner_id to tenant table ${f.references}`,
      );
    }
  }
  return found.sort();
}

describe('the schema, read for Citus distribution by owner_id', () => {
  it('every table without an owner is a named reference table', async () => {
    const ownerless = (await tables()).filter((t) => !t.tenant).map((t) => t.table);
    expect(ownerless.sort()).toEqual([...REFERENCE_TABLES].sort());
  });

  it('no key or foreign key blocks distribution by owner_id', async () => {
    expect(await blockers()).toEqual([]);
  });

  it('the key that carries one job per intent already includes owner_id', async () => {
    const keys = await uniqueIndexes();
    expect(keys.find((k) => k.index === 'jobs_owner_key_unique')?.columns).toEqual([
      'owner_id',
      'idempotency_key',
    ]);
  });

  it('the check sees a new key without owner_id', async () => {
    await client().query(
      'CREATE UNIQUE INDEX citus_probe_unique ON onejob.ledger_accounts (account, currency)',
    );
    try {
      expect(await blockers()).toContain(
        'ledger_accounts.citus_probe_unique: unique (account, currency) lacks owner_id',
      );
    } finally {
      await client().query('DROP INDEX onejob.citus_probe_unique');
    }
  });
});
