// runAt on intake: refused before anything is written unless it is an instant, part of the
// request's fingerprint, and shown by the job view as it was asked. No worker runs here:
// when the job starts is test/attempts/runAtWakeup.test.ts.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/jobs/fingerprint.js';
import { jobWrites } from '../helpers/countRows.js';
import { postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const rowCounts = () => jobWrites(t.onejob.pool);

interface JobJson {
  id: string;
  state: string;
  runAt: string | null;
}

describe('runAt on intake', () => {
  it.each([
    ['a date without a time zone', '2030-01-01T10:00:00'],
    ['a day that does not exist', '2030-02-30T10:00:00Z'],
    ['free text', 'tomorrow at noon'],
    ['a date alone', '2030-01-01'],
    ['a number', 1_900_000_000_000],
    ['an object', { at: '2030-01-01T10:00:00Z' }],
  ])('a runAt that is %s is a 400 request_invalid naming runAt, and writes nothing', async (_, runAt) => {
    const before = await rowCounts();
    const r = await postJob(t, `bad-run-at-${JSON.stringify(runAt)}`, {
      operation: 'charge',
      input: { amount: 1 },
      runAt,
    });
    expect(r.status).toBe(400);
    const problem = (await r.json()) as { code: string; detail: string };
    expect(problem.code).toBe('request_invalid');
    expect(problem.detail).toMatch(/runAt/);
    expect(await rowCounts()).toEqual(before);
  });

  it('the job view shows runAt as asked, in UTC to the millisecond, and null when none was asked', async () => {
    const r = await postJob(t, 'run-at-shown', {
      operation: 'charge',
      input: { amount: 2 },
      runAt: '2031-06-01T12:00:00.250+02:00',
    });
    expect(r.status).toBe(202);
    const created = (await r.json()) as JobJson;
    expect(created).toMatchObject({ state: 'queued', runAt: '2031-06-01T10:00:00.250Z' });
    const read = (await (await t.request(`/v1/jobs/${created.id}`)).json()) as JobJson;
    expect(read.runAt).toBe('2031-06-01T10:00:00.250Z');
    const { rows } = await t.onejob.pool.query('SELECT run_at, run_after FROM onejob.jobs WHERE id = $1', [
      created.id,
    ]);
    expect(rows[0].run_after.toISOString()).toBe('2031-06-01T10:00:00.250Z');

    const plain = (await (
      await postJob(t, 'no-run-at', { operation: 'charge', input: { amount: 2 } })
    ).json()) as JobJson;
    expect(plain.runAt).toBeNull();
  });

  it('a past runAt is queued at intake, behind the jobs already waiting, never ahead of them', async () => {
    const r = await postJob(t, 'run-at-past', {
      operation: 'charge',
      input: { amount: 3 },
      runAt: '2001-01-01T00:00:00Z',
    });
    const job = (await r.json()) as JobJson;
    expect(job.runAt).toBe('2001-01-01T00:00:00.000Z');
    const { rows } = await t.onejob.pool.query(
      'SELECT run_after >= created_at AS now, run_after <= now() AS due FROM onejob.jobs WHERE id = $1',
      [job.id],
    );
    expect(rows[0]).toEqual({ now: true, due: true });
  });

  it('the same key with another runAt is a 409; with the same instant, however written, it replays', async () => {
    const body = { operation: 'charge', input: { amount: 4 }, runAt: '2032-01-01T00:00:00Z' };
    const first = await postJob(t, 'run-at-key', body);
    expect(first.status).toBe(202);
    const job = (await first.json()) as JobJson;

    const same = await postJob(t, 'run-at-key', { ...body, runAt: '2032-01-01T01:00:00+01:00' });
    expect(same.status).toBe(202);
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    expect(((await same.json()) as JobJson).id).toBe(job.id);

    const before = await rowCounts();
    for (const other of [
      { ...body, runAt: '2032-01-01T00:00:01Z' },
      { operation: body.operation, input: body.input },
    ]) {
      const r = await postJob(t, 'run-at-key', other);
      expect(r.status).toBe(409);
      expect(((await r.json()) as { code: string; jobId: string }).code).toBe('idempotency_key_reused');
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('a job created without runAt replays when the key comes back with runAt null', async () => {
    const body = { operation: 'charge', input: { amount: 5 } };
    const first = (await (await postJob(t, 'run-at-null', body)).json()) as JobJson;
    const again = await postJob(t, 'run-at-null', { ...body, runAt: null });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as JobJson).id).toBe(first.id);
  });

  it('a request without runAt keeps the fingerprint of earlier versions, so stored jobs still replay', () => {
    // What every earlier version stored: the SHA-256 of the canonical {input, operation}.
    const stored = createHash('sha256')
      .update('{"input":{"amount":1999},"operation":"charge"}')
      .digest('hex');
    expect(fingerprint({ operation: 'charge', input: { amount: 1999 } })).toBe(stored);
    expect(fingerprint({ operation: 'charge', input: { amount: 1999 }, runAt: null })).toBe(stored);
    expect(
      fingerprint({ operation: 'charge', input: { amount: 1999 }, runAt: '2030-01-01T00:00:00.000Z' }),
    ).not.toBe(stored);
  });

  it('the list with waiting=true holds the queued jobs whose runAt is ahead, and no other', async () => {
    const ahead = (await (
      await postJob(t, 'list-ahead', {
        operation: 'charge',
        input: { amount: 7 },
        runAt: '2040-01-01T00:00:00Z',
      })
    ).json()) as JobJson;
    await postJob(t, 'list-past', {
      operation: 'charge',
      input: { amount: 7 },
      runAt: '2001-01-01T00:00:00Z',
    });
    await postJob(t, 'list-none', { operation: 'charge', input: { amount: 7 } });
    const page = (await (await t.request('/v1/jobs?waiting=true&limit=200')).json()) as { items: JobJson[] };
    const keys = page.items.map((j) => (j as JobJson & { idempotencyKey: string }).idempotencyKey);
    expect(keys).toContain('list-ahead');
    expect(keys).not.toContain('list-past');
    expect(keys).not.toContain('list-none');
    expect(page.items.every((j) => j.state === 'queued' && Date.parse(j.runAt!) > Date.now())).toBe(true);
    // A waiting job that started (here: cancelled) is no longer listed.
    expect((await t.request(`/v1/jobs/${ahead.id}/cancel`, { method: 'POST', json: {} })).status).toBe(200);
    const after = (await (await t.request('/v1/jobs?waiting=true&limit=200')).json()) as { items: JobJson[] };
    expect(after.items.map((j) => j.id)).not.toContain(ahead.id);
  });

  it('the library takes runAt as a Date and refuses an invalid one before writing', async () => {
    const at = new Date(Date.UTC(2033, 0, 1));
    const { job } = await t.onejob.jobs.create({
      ownerId: 'owner-a',
      idempotencyKey: 'run-at-library',
      operation: 'charge',
      input: { amount: 6 },
      runAt: at,
    });
    expect(job.runAt).toBe('2033-01-01T00:00:00.000Z');
    const before = await rowCounts();
    await expect(
      t.onejob.jobs.create({
        ownerId: 'owner-a',
        idempotencyKey: 'run-at-library-bad',
        operation: 'charge',
        input: { amount: 6 },
        runAt: new Date(Number.NaN),
      }),
    ).rejects.toMatchObject({ code: 'request_invalid' });
    expect(await rowCounts()).toEqual(before);
  });
});
