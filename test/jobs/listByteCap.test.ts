// One tenant's big jobs must not fill the server's memory: a page of `GET /v1/jobs` is cut
// at its byte cap inside PostgreSQL, so the server never reads the jobs it would drop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/createPool.js';
import { listJobDeliveries, listJobEvents } from '../../src/jobs/jobHistory.js';
import { listJobs } from '../../src/jobs/listJobs.js';
import { OWNER_A, OWNER_B, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
const PAD = 'x'.repeat(100_000);
const JOBS = 30;
beforeAll(async () => {
  t = await startTestApp();
  for (let i = 0; i < JOBS; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        postJob(
          t,
          `big-${i + k}`,
          { operation: 'charge', input: { amount: 1, pad: PAD } },
          OWNER_B.token,
        ).then((r) => r.text()),
      ),
    );
  }
});
afterAll(async () => t?.close());

/** The pool, counting the bytes of every row PostgreSQL sends back. */
function countingDb(): { db: Queryable; bytes: () => number } {
  let bytes = 0;
  const db = {
    async query(...args: unknown[]) {
      const result = await (t.onejob.pool.query as (...a: unknown[]) => Promise<{ rows: unknown[] }>)(
        ...args,
      );
      bytes += Buffer.byteLength(JSON.stringify(result.rows));
      return result;
    },
  } as unknown as Queryable;
  return { db, bytes: () => bytes };
}

describe('list byte caps', () => {
  it("a page of big jobs reads from PostgreSQL at most its byte cap, never limit × the jobs' size", async () => {
    const { db, bytes } = countingDb();
    const page = await listJobs(db, OWNER_B.owner, { limit: 200, maxBytes: 250_000 });
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).not.toBeNull();
    // Two jobs of 100 kB and a few hundred bytes each for the walk; the 28 others never leave the database.
    expect(bytes()).toBeLessThan(250_000 + 10_000);
  });

  it('following nextCursor through byte-capped pages lists every job exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await listJobs(t.onejob.pool, OWNER_B.owner, { limit: 200, maxBytes: 250_000, cursor });
      expect(page.items.length).toBeGreaterThan(0);
      seen.push(...page.items.map((j) => j.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(JOBS);
    expect(new Set(seen).size).toBe(JOBS);
  });

  it('a job larger than the cap alone is still returned, one per page', async () => {
    const page = await listJobs(t.onejob.pool, OWNER_B.owner, { limit: 5, maxBytes: 1000 });
    expect(page.items).toHaveLength(1);
    expect(page.nextCursor).not.toBeNull();
  });

  it('without a byte cap the limit alone ends the page, and another owner sees none of these jobs', async () => {
    const page = await listJobs(t.onejob.pool, OWNER_B.owner, { limit: 7 });
    expect(page.items).toHaveLength(7);
    expect(page.nextCursor).not.toBeNull();
    expect((await listJobs(t.onejob.pool, OWNER_A.owner, { limit: 200, maxBytes: 250_000 })).items).toEqual(
      [],
    );
  });

  it("a job's events and deliveries are read without reading the job's input, and stay its owner's", async () => {
    const [job] = (await listJobs(t.onejob.pool, OWNER_B.owner, { limit: 1 })).items;
    const { db, bytes } = countingDb();
    expect(await listJobEvents(db, OWNER_B.owner, job!.id)).not.toHaveLength(0);
    expect(await listJobDeliveries(db, OWNER_B.owner, job!.id)).not.toHaveLength(0);
    expect(bytes()).toBeLessThan(10_000);
    await expect(listJobEvents(db, OWNER_A.owner, job!.id)).rejects.toMatchObject({ code: 'job_not_found' });
    await expect(listJobDeliveries(db, OWNER_A.owner, 'not-a-uuid')).rejects.toMatchObject({
      code: 'job_not_found',
    });
  });
});
