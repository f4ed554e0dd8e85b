// A provider's `maxConcurrency` as rows: slots 1..maxConcurrency in onejob.provider_slots,
// taken by the claim (src/worker/claimJobs.ts) and by hedges (takeProviderSlot) under a
// row lock, so the cap holds across every worker process on the database.
import type { OnejobConfig } from '../config/types.js';
import type { Queryable } from '../db/createPool.js';

/** The providers with a `maxConcurrency`, and its value. */
export function providerCaps(config: Pick<OnejobConfig, 'providers'>): Record<string, number> {
  const caps: Record<string, number> = {};
  for (const [name, provider] of Object.entries(config.providers ?? {})) {
    const cap = (provider as { maxConcurrency?: number }).maxConcurrency;
    if (cap !== undefined) caps[name] = cap;
  }
  return caps;
}

// Slots beyond a lowered cap stay in the table: the claim only takes slot_no <= the cap it
// runs with, so processes with the old and the new config can overlap during a rollout.
const MAKE_SQL = `
INSERT INTO onejob.provider_slots (provider, slot_no)
SELECT c.key, g FROM jsonb_each_text($1::jsonb) c CROSS JOIN LATERAL generate_series(1, c.value::int) g
ON CONFLICT (provider, slot_no) DO NOTHING`;

/** Makes sure every capped provider has its slot rows (a worker does it before its first claim). */
export async function makeProviderSlots(db: Queryable, caps: Record<string, number>): Promise<void> {
  if (Object.keys(caps).length === 0) return;
  await db.query(MAKE_SQL, [JSON.stringify(caps)]);
}

// A slot is free when nobody holds it, or its holder is no longer a live attempt under a
// valid lease (finished, unknown, never committed, or its worker gone): the claim's rule,
// read in a fresh snapshot (migration 0019 says why).
const TAKE_SQL = `
WITH slot AS (
  SELECT s.provider, s.slot_no FROM onejob.provider_slots s
  WHERE s.provider = $1 AND s.slot_no <= $2::int
    AND (s.holder IS NULL OR NOT onejob.provider_slot_held(s.holder))
  ORDER BY s.slot_no
  LIMIT 1
  FOR UPDATE SKIP LOCKED
)
UPDATE onejob.provider_slots s SET holder = $3::uuid, taken_at = now()
FROM slot WHERE s.provider = slot.provider AND s.slot_no = slot.slot_no
RETURNING s.slot_no`;

/**
 * Takes a free slot of `provider` for the attempt `holder` (an attempt about to start, in
 * the caller's transaction); false when every slot is busy. Uncapped providers always have room.
 */
export async function takeProviderSlot(
  db: Queryable,
  caps: Record<string, number>,
  provider: string,
  holder: string,
): Promise<boolean> {
  const cap = caps[provider];
  if (cap === undefined) return true;
  const { rows } = await db.query(TAKE_SQL, [provider, cap, holder]);
  return rows.length > 0;
}

/** Thrown inside an attempt's start when its capped provider has no free slot: nothing is started. */
export class NoProviderSlot extends Error {
  constructor(readonly provider: string) {
    super(`every slot of provider ${provider} is taken (maxConcurrency)`);
    this.name = 'NoProviderSlot';
  }
}

// Per provider: slots held now and the end of a pause still running. Both tables hold a
// few rows per provider.
const LOAD_SQL = `
SELECT provider, sum(held)::int AS in_flight, max(until) AS paused_until FROM (
  SELECT provider, CASE WHEN onejob.provider_slot_held(holder) THEN 1 ELSE 0 END AS held, NULL::timestamptz AS until
  FROM onejob.provider_slots WHERE holder IS NOT NULL
  UNION ALL
  SELECT provider, 0, until FROM onejob.provider_pauses WHERE until > now()
) x GROUP BY provider`;

/** What limits each provider now: its slots in use (capped ones) and its pause, if any. */
export async function providerLoad(
  db: Queryable,
): Promise<Map<string, { inFlight: number; pausedUntil: Date | null }>> {
  const { rows } = await db.query<{ provider: string; in_flight: number; paused_until: Date | null }>(
    LOAD_SQL,
  );
  return new Map(rows.map((r) => [r.provider, { inFlight: r.in_flight, pausedUntil: r.paused_until }]));
}
