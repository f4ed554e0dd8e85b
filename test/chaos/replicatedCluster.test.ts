// The replicated PostgreSQL of the chaos harness and the failover tests
// (test/helpers/replicatedPostgres.ts): the failover fault may run any number of times in
// one run, because each failover builds a new synchronous standby in the dead node's slot.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplicatedPostgres, startReplicatedPostgres } from '../helpers/replicatedPostgres.js';

let cluster: ReplicatedPostgres;
const onPrimary = <R extends Record<string, unknown>>(sql: string) =>
  cluster.query<R>(cluster.primaryUrl(), sql);

beforeAll(async () => {
  cluster = await startReplicatedPostgres();
});
afterAll(async () => {
  await cluster?.close();
});

describe('replicated PostgreSQL', () => {
  it('fails over twice in a row: every commit survives, the host list stays, each rebuilt node is the synchronous standby', async () => {
    const url = cluster.hostListUrl();
    await onPrimary('CREATE TABLE acknowledged (n int PRIMARY KEY)');
    for (let round = 1; round <= 2; round++) {
      const before = cluster.primary;
      await onPrimary(`INSERT INTO acknowledged VALUES (${round})`);
      const note = await cluster.failover(100, round === 2 ? 300 : 0);
      expect(note).toMatch(/^promoted /);
      expect(cluster.primary).not.toBe(before);
      expect(cluster.standby).toBe(before);
      expect(cluster.hostListUrl()).toBe(url);
      const rows = await onPrimary<{ n: number }>('SELECT n FROM acknowledged ORDER BY n');
      expect(rows.map((r) => r.n)).toEqual(round === 1 ? [1] : [1, 2]);
      const [recovery] = await onPrimary<{ r: boolean }>('SELECT pg_is_in_recovery() AS r');
      expect(recovery?.r).toBe(false);
      const standbys = await onPrimary<{ application_name: string; sync_state: string }>(
        'SELECT application_name, sync_state FROM pg_stat_replication',
      );
      expect(standbys).toEqual([{ application_name: cluster.standby.name, sync_state: 'sync' }]);
    }
  });
});
