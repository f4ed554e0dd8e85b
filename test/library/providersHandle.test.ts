import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../attempts/attemptTestKit.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/startTestApp.js';
import { summarizeOperation } from '../helpers/summarizeOperation.js';

// onejob.providers is the registry the worker uses plus the verification reads and run the
// HTTP routes call; what the handle says is what GET /v1/providers answers.

const summarize = summarizeOperation();

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    config: configWith(
      { 'sim-a': { kind: 'simulated' }, 'sim-b': { kind: 'simulated', latencyMs: 5 } },
      { summarize },
    ),
  });
});
afterAll(async () => t?.close());

const statusOf = async (name: string) =>
  (await t.onejob.providers.status(name))?.operations.map((o) => [o.operation, o.role, o.status]);

describe('the providers handle', () => {
  it('keeps the registry: get, names and set still name the adapters', () => {
    expect(t.onejob.providers.names()).toEqual(['sim-a', 'sim-b']);
    expect(t.onejob.providers.get('sim-b')?.name).toBe('sim-b');
  });

  it('verify stores a verification that status, list and GET /v1/providers all report', async () => {
    expect(await statusOf('sim-b')).toEqual([['summarize', 'fallback', 'never']]);
    const report = await t.onejob.providers.verify('sim-b', 'summarize');
    expect(report.passed).toBe(true);
    expect(await statusOf('sim-b')).toEqual([['summarize', 'fallback', 'verified']]);
    expect(await t.onejob.providers.status('nobody')).toBeUndefined();
    const list = await t.onejob.providers.list();
    const http = (await (await t.request('/v1/providers')).json()) as { items: unknown };
    expect(http.items).toEqual(JSON.parse(JSON.stringify(list)));
  });

  it('the verify route answers with the report the handle stores', async () => {
    const response = await t.request('/v1/providers/sim-a/verify', {
      method: 'POST',
      token: ADMIN_TOKEN,
      json: { operation: 'summarize' },
    });
    expect(response.status).toBe(200);
    const report = (await response.json()) as { id: string; provider: string; passed: boolean };
    expect([report.provider, report.passed]).toEqual(['sim-a', true]);
    const latest = (await t.onejob.providers.status('sim-a'))?.operations[0]?.lastVerification;
    expect(latest?.id).toBe(report.id);
  });
});
