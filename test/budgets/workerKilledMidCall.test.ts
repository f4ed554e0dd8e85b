// A worker killed in the middle of a priced call (failpoint, real process): its hold is
// neither lost nor posted twice. While the attempt's outcome is unknown the hold stays,
// so the budget refuses what would not fit beside it; once reconciliation records the
// outcome, the hold is resolved exactly once, and at every sample taken meanwhile spent
// plus held is within the limit.
import { beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig } from '../../src/config/types.js';
import { attemptCostTransferId } from '../../src/ledger/postAttemptCost.js';
import { postPendingAttemptCosts } from '../../src/ledger/postPendingAttemptCosts.js';
import {
  configWith,
  createJob,
  exclusiveOnPay,
  jobInState,
  statusGatedAppPerFile,
} from '../attempts/attemptTestKit.js';
import { serveRole, writeConfigFile } from '../helpers/spawnOnejob.js';
import { OWNER_A } from '../helpers/startTestApp.js';

const LIMIT = 150;
const PER_CALL = 100;

const app = statusGatedAppPerFile((fake) =>
  configWith(
    {
      pay: {
        kind: 'http',
        url: fake.chargeUrl,
        statusUrl: fake.statusUrl,
        prices: { perCallMicros: PER_CALL },
      },
    } as NonNullable<OnejobConfig['providers']>,
    {
      charge: exclusiveOnPay({ attemptTimeoutMs: 10_000, maxAttempts: 3 }),
    },
    { leaseMs: 1_000, pollMs: 20 },
  ),
);
beforeAll(async () => {
  await app.t.onejob.pool.query(
    `INSERT INTO onejob.budgets (owner_id, currency, limit_micros, period) VALUES ($1, 'USD', $2, 'total')`,
    [OWNER_A.owner, LIMIT],
  );
});

interface Usage {
  spent: number;
  held: number;
}

async function usage(): Promise<Usage> {
  const { rows } = await app.t.onejob.pool.query<{ spent: string; held: string }>(
    `SELECT coalesce(sum(spent_micros), 0) AS spent, coalesce(sum(held_micros), 0) AS held
     FROM onejob.budget_usage WHERE owner_id = $1 AND currency = 'USD'`,
    [OWNER_A.owner],
  );
  return { spent: Number(rows[0]!.spent), held: Number(rows[0]!.held) };
}

/** Reads the budget's usage until stopped, back to back: every sample it took. */
function sampleUsage(): { stop(): Promise<Usage[]> } {
  const samples: Usage[] = [];
  let running = true;
  const loop = (async () => {
    while (running) samples.push(await usage());
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}

describe('a worker killed mid-call under a budget', () => {
  it('keeps the hold while the outcome is unknown and resolves it exactly once after reconciliation; spent + held never passes the limit', async () => {
    const job = await createJob(app.t, 'killed-1', 'charge', { amount: 4200 });
    const file = await writeConfigFile(app.config);
    const sampler = sampleUsage();
    const child = serveRole('worker', file, {
      DATABASE_URL: app.db.url,
      ONEJOB_API_KEYS: `${OWNER_A.token}=${OWNER_A.owner}`,
      // The provider charged and answered; the worker dies before it records the answer.
      ONEJOB_FAILPOINTS: 'worker.after_provider_response=kill',
    });
    expect(await child.exited).toBe('SIGKILL');
    expect(app.fake.calls()).toHaveLength(1);

    // The dead worker's hold is still there: the whole per-call price, unresolved.
    const { rows: attempts } = await app.t.onejob.pool.query<{ id: string; state: string }>(
      'SELECT id, state FROM onejob.attempts WHERE job_id = $1',
      [job.id],
    );
    expect(attempts).toEqual([{ id: expect.any(String), state: 'running' }]);
    const holdId = attemptCostTransferId(attempts[0]!.id);
    expect(await usage()).toEqual({ spent: 0, held: PER_CALL });

    // Another worker sweeps the expired lease: unknown, and the hold stays with it.
    app.t.onejob.attempts.startWorker();
    await jobInState(app.t, job.id, 'unknown');
    expect(await usage()).toEqual({ spent: 0, held: PER_CALL });

    // Beside the held call, a second one does not fit (50 of 150 left): it is refused
    // before any call, so the dead worker's hold was not lost.
    const second = await createJob(app.t, 'killed-2', 'charge', { amount: 1 });
    const refused = await jobInState(app.t, second.id, 'failed');
    expect(refused.attempts.map((a) => a.error?.code)).toEqual(['budget_exhausted']);
    expect(app.fake.calls()).toHaveLength(1);

    // Reconciliation asks the provider (held at the gate) and records the real outcome.
    app.statusGate.open();
    await jobInState(app.t, job.id, 'succeeded');
    const samples = await sampler.stop();
    expect(samples.length).toBeGreaterThan(0);
    for (const s of samples) expect(s.spent + s.held).toBeLessThanOrEqual(LIMIT);

    const { rows: resolutions } = await app.t.onejob.pool.query<{ action: string; amount: string }>(
      'SELECT action, amount FROM onejob.ledger_pending_resolutions WHERE owner_id = $1 AND pending_id = $2',
      [OWNER_A.owner, holdId],
    );
    // The provider says the lost call was made: its price is posted, the hold released.
    expect(resolutions).toEqual([{ action: 'post', amount: String(PER_CALL) }]);
    const posted = PER_CALL;
    expect(await usage()).toEqual({ spent: posted, held: 0 });

    // The cost poster, run now, finds nothing left to post for it: one transfer at most.
    await postPendingAttemptCosts(app.t.onejob.pool, app.t.onejob.config);
    const { rows: transfers } = await app.t.onejob.pool.query<{ amount: string }>(
      'SELECT amount FROM onejob.ledger_transfers WHERE owner_id = $1 AND id = $2',
      [OWNER_A.owner, holdId],
    );
    expect(transfers.map((r) => Number(r.amount))).toEqual([posted]);
  });
});
