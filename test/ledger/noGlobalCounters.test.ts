// What a tenant reads carries no counter shared with other tenants: a job's events number
// from 1 within the job, and ledger entry cursors hold only the owner's own data, so no
// tenant can measure how busy the others are.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_A, OWNER_B, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  // Another tenant's traffic first: every global sequence moves on.
  for (let i = 0; i < 5; i++) {
    await (await postJob(t, `b-${i}`, { operation: 'charge', input: { amount: 1 } }, OWNER_B.token)).text();
    await transfer(OWNER_B.token, `b-t-${i}`);
  }
  for (let i = 0; i < 3; i++) await transfer(OWNER_A.token, `a-t-${i}`);
});
afterAll(async () => t?.close());

async function transfer(token: string, id: string) {
  const res = await t.request('/v1/ledger/transfers', {
    method: 'POST',
    token,
    json: { id, debitAccount: 'cash', creditAccount: 'shop', amount: 5, currency: 'EUR' },
  });
  expect(res.status).toBe(201);
  await res.text();
}

interface EntryPage {
  asOf: string;
  items: { transferId: string; side: string; recordedAt: string }[];
  nextCursor: string | null;
}
const entries = async (query: string) => {
  const res = await t.request(`/v1/ledger/accounts/shop/entries${query}`);
  return { status: res.status, page: (await res.json()) as EntryPage };
};

describe('no global counters in what tenants read', () => {
  it("a job's events and deliveries number from 1 within the job, whatever other tenants wrote before", async () => {
    const job = (await (await postJob(t, 'a-job', { operation: 'charge', input: { amount: 1 } })).json()) as {
      id: string;
    };
    for (const path of ['events', 'deliveries']) {
      const { items } = (await (await t.request(`/v1/jobs/${job.id}/${path}`)).json()) as {
        items: { seq: string }[];
      };
      expect(
        items.map((e) => e.seq),
        path,
      ).toEqual(['1']);
    }
  });

  it("an entries cursor holds the page's instant and the owner's own transfer id, never the entries' global seq", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const { status, page }: { status: number; page: EntryPage } = await entries(
        `?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(status).toBe(200);
      seen.push(...page.items.map((e) => e.transferId));
      cursor = page.nextCursor;
      if (cursor) {
        const last = page.items.at(-1)!;
        expect(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))).toEqual([
          page.asOf,
          last.recordedAt,
          last.transferId,
          last.side,
        ]);
      }
    } while (cursor);
    expect(seen).toEqual(['a-t-0', 'a-t-1', 'a-t-2']);
  });

  it('a cursor of the earlier recordedAt|seq form is still followed, and only for its owner', async () => {
    const first = (await entries('?limit=1')).page;
    const { rows } = await t.onejob.pool.query<{ seq: string; other: string }>(
      `SELECT (SELECT seq::text FROM onejob.ledger_entries WHERE owner_id = $1 AND transfer_id = 'a-t-0' AND account = 'shop') AS seq,
              (SELECT seq::text FROM onejob.ledger_entries WHERE owner_id = $2 LIMIT 1) AS other`,
      [OWNER_A.owner, OWNER_B.owner],
    );
    const legacy = (seq: string) =>
      Buffer.from(`${first.asOf}|${first.items[0]!.recordedAt}|${seq}`).toString('base64url');
    const next = await entries(`?cursor=${legacy(rows[0]!.seq)}&limit=10`);
    expect(next.status).toBe(200);
    expect(next.page.items.map((e) => e.transferId)).toEqual(['a-t-1', 'a-t-2']);
    expect((await entries(`?cursor=${legacy(rows[0]!.other)}`)).status).toBe(400);
  });
});
