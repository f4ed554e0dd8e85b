// The chaos harness's replicated PostgreSQL (chaos/cluster/replicatedPostgres.ts): the
// failover fault may run any number of times in one run, because each failover builds a
// new synchronous standby in the dead node's slot.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplicatedPostgres } from '../../chaos/cluster/replicatedPostgres.js';

let cluster: ReplicatedPostgres;

async function query<R extends pg.QueryResultRow>(url: string, sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  cluster = await ReplicatedPostgres.start();
});
afterAll(async () => {
  await cluster?.close();
});

describe('replicated PostgreSQL of the chaos harness', () => {
  it('fails over twice in a row: every commit survives, the host list stays, each rebuilt node is the synchronous standby', async () => {
    const url = cluster.url;
    await query(cluster.nodeUrl(cluster.primary), 'CREATE TABLE acknowledged (n int PRIMARY KEY)');
    for (let round = 1; round <= 2; round++) {
      const before = cluster.primary;
      await query(cluster.nodeUrl(before), `INSERT INTO acknowledged VALUES (${round})`);
      const note = await cluster.failover(100, round === 2 ? 300 : 0);
      expect(note).toMatch(/^promoted /);
      expect(cluster.primary).not.toBe(before);
      expect(cluster.standby).toBe(before);
      expect(cluster.url).toBe(url);
      const rows = await query<{ n: number }>(
        cluster.nodeUrl(cluster.primary),
        'SELECT n FROM acknowledged ORDER BY n',
      );
      expect(rows.map((r) => r.n)).toEqual(round === 1 ? [1] : [1, 2]);
      const [recovery] = await query<{ r: boolean }>(
        cluster.nodeUrl(cluster.primary),
        'SELECT pg_is_in_recovery() AS r',
      );
      expect(recovery?.r).toBe(false);
      const standbys = await query<{ application_name: string; sync_state: string }>(
        cluster.nodeUrl(cluster.primary),
        'SELECT application_name, sync_state FROM pg_stat_replication',
      );
      expect(standbys).toEqual([{ application_name: cluster.standby.name, sync_state: 'sync' }]);
    }
  });
});
