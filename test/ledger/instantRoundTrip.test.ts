// Every instant the ledger answers with can be sent back: asOf and cursors with more than
// microseconds, or past year 9999 once PostgreSQL rounds them, are refused up front.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseInstant } from '../../src/time/parseInstant.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  const res = await t.request('/v1/ledger/transfers', {
    method: 'POST',
    json: { id: 't1', debitAccount: 'cash', creditAccount: 'sales', amount: 5, currency: 'EUR' },
  });
  expect(res.status).toBe(201);
});
afterAll(async () => t?.close());

const get = async (path: string) => {
  const res = await t.request(path);
  return {
    status: res.status,
    body: (await res.json()) as { code?: string; asOf?: string; nextCursor?: string },
  };
};

describe('instants the ledger can take back', () => {
  it('an asOf with more than six fractional digits is a 400 before PostgreSQL rounds it into year 10000', async () => {
    for (const path of ['/v1/ledger/accounts/sales', '/v1/ledger/accounts/sales/entries']) {
      const res = await get(`${path}?asOf=${encodeURIComponent('9999-12-31T23:59:59.9999999Z')}`);
      expect(res.status, path).toBe(400);
      expect(res.body.code).toBe('request_invalid');
    }
    expect(parseInstant('2025-01-01T00:00:00.1234567Z')).toBeUndefined();
    expect(parseInstant('2025-01-01T00:00:00.123456Z')?.toISOString()).toBe('2025-01-01T00:00:00.123Z');
  });

  it("the last microsecond of year 9999 is answered, and the answer's asOf reads again", async () => {
    const first = await get(
      `/v1/ledger/accounts/sales?asOf=${encodeURIComponent('9999-12-31T23:59:59.999999Z')}`,
    );
    expect(first.status).toBe(200);
    expect(first.body.asOf).toBe('9999-12-31T23:59:59.999999Z');
    const again = await get(`/v1/ledger/accounts/sales?asOf=${encodeURIComponent(first.body.asOf!)}`);
    expect(again.status).toBe(200);
  });

  it('an entries cursor carrying seven fractional digits is a 400', async () => {
    const cursor = Buffer.from('9999-12-31T23:59:59.9999999Z|2025-01-01T00:00:00.000000Z|1').toString(
      'base64url',
    );
    const res = await get(`/v1/ledger/accounts/sales/entries?cursor=${cursor}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('request_invalid');
  });
});
