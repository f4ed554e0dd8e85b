// An http provider's URL may carry `user:password@` or a key in its query. Tenants list
// providers and operators read verification reports: both see scheme, host and port only,
// while the full URL still decides the contract hash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnejobConfig, OperationConfig, ProviderConfig } from '../../src/config/types.js';
import { contractHash } from '../../src/providers/verification/contractHash.js';
import { type FakePaymentServer, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { ADMIN_TOKEN, OWNER_B, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let pay: FakePaymentServer;
let t: TestApp;
let host: string;
beforeAll(async () => {
  pay = await startFakePaymentServer();
  host = new URL(pay.url).host;
  const config: OnejobConfig = {
    providers: {
      pay: { kind: 'http', url: `http://user:pass@${host}/charge?apikey=K-secret` },
    },
    operations: {
      charge: {
        kind: 'http',
        providers: ['pay'],
        inputSchema: { type: 'object', properties: { amount: { type: 'integer' } } },
        contract: { fixtures: [{ input: { amount: 1 } }] },
      },
    },
  } as OnejobConfig;
  t = await startTestApp({ config });
});
afterAll(async () => {
  await Promise.all([pay?.close(), t?.close()]);
});

function expectNoCredentials(text: string) {
  for (const secret of ['user:', 'pass@', 'apikey', 'K-secret', '/charge'])
    expect(text, `leaks "${secret}"`).not.toContain(secret);
}

describe('provider URLs', () => {
  it("no tenant reads an http provider's URL credentials, path or query from GET /v1/providers", async () => {
    const res = await t.request('/v1/providers', { token: OWNER_B.token });
    expect(res.status).toBe(200);
    const text = await res.text();
    expectNoCredentials(text);
    const { items } = JSON.parse(text) as { items: { name: string; model: string }[] };
    expect(items.find((p) => p.name === 'pay')?.model).toBe(`http://${host}`);
  });

  it('the verification report and its stored row show the provider URL as scheme, host and port', async () => {
    const res = await t.request('/v1/providers/pay/verify', {
      method: 'POST',
      token: ADMIN_TOKEN,
      json: { operation: 'charge' },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expectNoCredentials(text);
    expect((JSON.parse(text) as { model: string }).model).toBe(`http://${host}`);
    const { rows } = await t.onejob.pool.query(
      'SELECT model, report::text AS report FROM onejob.provider_verifications',
    );
    for (const row of rows) expectNoCredentials(`${row.model} ${row.report}`);
  });

  it('the full URL, credentials included, still decides the contract hash', () => {
    const op: OperationConfig = { kind: 'http', providers: ['pay'] } as OperationConfig;
    const provider = (url: string): ProviderConfig => ({ kind: 'http', url }) as ProviderConfig;
    expect(contractHash(op, provider('http://u:one@h:1/charge'))).not.toBe(
      contractHash(op, provider('http://u:two@h:1/charge')),
    );
  });
});
