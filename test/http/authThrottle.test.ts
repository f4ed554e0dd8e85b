// Guessing tokens is throttled per client address: past limits.authFailureBurst failed
// authentications, the address gets 429 before any token it sends is checked.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { ADMIN_TOKEN, OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    config: {
      ...structuredClone(defaultConfig),
      limits: { authFailuresPerSecond: 0.001, authFailureBurst: 5 },
    } as OnejobConfig,
  });
});
afterAll(async () => t?.close());

/** GET from a chosen loopback address, so two clients have two addresses. */
function getFrom(localAddress: string, path: string, token: string) {
  const url = new URL(t.url);
  return new Promise<{ status: number; retryAfter: string | undefined; code: string | undefined }>(
    (resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: url.port,
          path,
          localAddress,
          headers: { authorization: `Bearer ${token}` },
        },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              retryAfter: res.headers['retry-after'] as string | undefined,
              code: text.startsWith('{') ? (JSON.parse(text) as { code?: string }).code : undefined,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    },
  );
}

describe('failed authentication', () => {
  it('an address past its failed-authentication burst gets 429 with Retry-After, even with a right token; another address does not', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await getFrom('127.0.0.9', '/v1/jobs', `guess-${i}`)).status);
    // Wrong admin tokens count the same as wrong tenant tokens.
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const guess = await getFrom('127.0.0.9', '/v1/outbox/dead-letters', 'admin-guess');
    expect(guess.status).toBe(429);
    expect(guess.code).toBe('authentication_throttled');
    expect(Number(guess.retryAfter)).toBeGreaterThanOrEqual(1);
    // A right guess from the throttled address learns nothing either.
    expect((await getFrom('127.0.0.9', '/v1/jobs', OWNER_A.token)).status).toBe(429);
    expect((await getFrom('127.0.0.9', '/v1/outbox/dead-letters', ADMIN_TOKEN)).status).toBe(429);
    // Another client's address has its own bucket.
    expect((await getFrom('127.0.0.10', '/v1/jobs', OWNER_A.token)).status).toBe(200);
  });

  it('public routes answer whatever the address sent before', async () => {
    expect((await getFrom('127.0.0.9', '/healthz', 'x')).status).toBe(200);
  });
});

describe('the failed-authentication throttle has its own switch', () => {
  it('with limits.enabled false, token guessing still gets 429 past the burst', async () => {
    const open = await startTestApp({
      config: {
        ...structuredClone(defaultConfig),
        limits: { enabled: false, authFailuresPerSecond: 0.001, authFailureBurst: 3 },
      } as OnejobConfig,
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await open.request('/v1/jobs', { token: `guess-${i}` })).status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    } finally {
      await open.close();
    }
  });

  it('limits.authFailureThrottle false turns it off, and the server says so when it starts', async () => {
    const lines: string[] = [];
    const open = await startTestApp({
      config: {
        ...structuredClone(defaultConfig),
        limits: { authFailureThrottle: false, authFailuresPerSecond: 0.001, authFailureBurst: 3 },
      } as OnejobConfig,
      logLines: lines,
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await open.request('/v1/jobs', { token: `guess-${i}` })).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      expect(lines.join('\n')).toMatch(
        /limits\.authFailureThrottle is false: failed authentications are not throttled/,
      );
    } finally {
      await open.close();
    }
  });
});
