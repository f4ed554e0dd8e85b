// A Standard Webhooks signature covers the body's bytes as sent. A body that is not valid
// UTF-8 verifies when its bytes were signed, and only then: a signature over a decoding of
// the body (where every bad byte became U+FFFD) is not a signature over the body.
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { OnejobConfig } from '../../src/config/types.js';
import { startTestApp, type TestApp } from '../helpers/startTestApp.js';

const KEY = randomBytes(32);
process.env.ONEJOB_TEST_RAW_SECRET = `whsec_${KEY.toString('base64')}`;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    config: {
      ...structuredClone(defaultConfig),
      inbox: {
        sources: {
          raw: {
            scheme: 'standard-webhooks',
            secretEnv: 'ONEJOB_TEST_RAW_SECRET',
            eventId: 'header:webhook-id',
            operation: 'charge',
            ownerId: 'acme',
          },
        },
      },
    } as OnejobConfig,
  });
});
afterAll(async () => t?.close());

function sign(id: string, timestamp: string, body: Buffer): string {
  const mac = createHmac('sha256', KEY).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

function deliver(id: string, body: Buffer, signature: (timestamp: string) => string) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return fetch(`${t.url}/v1/inbox/raw`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature(timestamp),
    },
    body: new Uint8Array(body),
  });
}

// {"amount": 5, "note": "caf<0xE9>"}: Latin-1 é, not valid UTF-8.
const latin1 = Buffer.concat([
  Buffer.from('{"amount": 5, "note": "caf'),
  Buffer.from([0xe9]),
  Buffer.from('"}'),
]);

describe('Standard Webhooks signatures over raw bytes', () => {
  it('a body that is not valid UTF-8, signed over its bytes, is accepted', async () => {
    const res = await deliver('evt_latin1', latin1, (ts) => sign('evt_latin1', ts, latin1));
    expect(res.status).toBe(202);
  });

  it('a signature over the decoded text does not verify a body carrying other bytes', async () => {
    // Signed over the decoding (0xE9 became U+FFFD), but sent with 0xFF where 0xE9 was.
    const decoded = Buffer.from(latin1.toString('utf8'), 'utf8');
    const sent = Buffer.from(latin1);
    sent[sent.indexOf(0xe9)] = 0xff;
    const res = await deliver('evt_swapped', sent, (ts) => sign('evt_swapped', ts, decoded));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('signature_invalid');
    const { rowCount } = await t.onejob.pool.query(
      "SELECT 1 FROM onejob.inbox_events WHERE event_id = 'evt_swapped'",
    );
    expect(rowCount).toBe(0);
  });
});
