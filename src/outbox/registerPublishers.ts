import type pg from 'pg';

const KNOWN_SQL = `SELECT name FROM onejob.outbox_publishers WHERE name = ANY($1::text[])`;

// A new publisher starts where the publisher furthest along is (its whole position, a
// consistent one), so it takes the backlog but not the history already published
// elsewhere; on a database with no publisher yet, before every event (the column's
// default), so nothing written before the first relay started is lost. No lock is needed:
// whatever commits after the copied position is ahead of it.
const INSERT_SQL = `
INSERT INTO onejob.outbox_publishers (name, kind, done, window_end, window_seq)
SELECT n.name, n.kind, coalesce(f.done, '1:1:'), f.window_end, coalesce(f.window_seq, 0)
FROM unnest($1::text[], $2::text[]) AS n(name, kind)
LEFT JOIN LATERAL (
  SELECT p.done, p.window_end, p.window_seq FROM onejob.outbox_publishers p
  ORDER BY pg_snapshot_xmin(p.done) DESC, pg_snapshot_xmin(coalesce(p.window_end, p.done)) DESC LIMIT 1
) f ON true
ON CONFLICT (name) DO NOTHING
RETURNING name`;

/**
 * Makes sure every publisher has a position in the event log. Returns the names that
 * were new.
 */
export async function registerPublishers(
  pool: pg.Pool,
  publishers: { name: string; kind: string }[],
): Promise<string[]> {
  const names = publishers.map((p) => p.name);
  const { rows: known } = await pool.query<{ name: string }>(KNOWN_SQL, [names]);
  if (known.length === names.length) return [];
  const { rows } = await pool.query<{ name: string }>(INSERT_SQL, [names, publishers.map((p) => p.kind)]);
  return rows.map((r) => r.name);
}
