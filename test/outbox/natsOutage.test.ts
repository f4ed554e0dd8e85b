import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Onejob } from '../../src/createOnejob.js';
import { publishEvent } from '../../src/outbox/publishEvent.js';
import { type Relay, startRelay } from '../../src/outbox/startRelay.js';
import { freePort } from '../helpers/ports.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { until } from '../helpers/until.js';
import { configWith, deliveryCounts, engine, streamMessages, uniqueName } from './outboxTestKit.js';

// A throwaway NATS server of this file's own, on a free loopback port, stopped and
// started again by the test. Its store directory survives the restart, like a real one.
const NATS_SERVER = '/usr/sbin/nats-server';
const stream = uniqueName('ONEJOB_OUTAGE_');

let port: number;
let storeDir: string;
let server: ChildProcess | undefined;
let url: string;
let db: TestDatabase;
let onejob: Onejob;
let relay: Relay;

async function startNats() {
  server = spawn(NATS_SERVER, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
    stdio: 'ignore',
  });
  await until('nats-server to accept connections', async () => {
    const nc = await connect({ servers: url, reconnect: false }).catch(() => undefined);
    await nc?.close();
    return nc !== undefined;
  });
}

async function stopNats() {
  const s = server;
  server = undefined;
  if (!s || s.exitCode !== null) return;
  const exited = new Promise((r) => s.once('exit', r));
  s.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  port = await freePort();
  url = `nats://127.0.0.1:${port}`;
  storeDir = await mkdtemp(join(tmpdir(), 'onejob-nats-'));
  await startNats();
  db = await createTestDatabase();
  onejob = engine(
    db.url,
    configWith({ publishers: [{ kind: 'nats', url, stream, timeoutMs: 500 }], pollMs: 50 }),
  );
  relay = await startRelay(onejob);
});
afterAll(async () => {
  await relay?.stop();
  await onejob?.close();
  await db?.drop();
  await stopNats();
  await rm(storeDir, { recursive: true, force: true });
});

async function writeEvents(n: number, offset: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { event } = await publishEvent(onejob.pool, {
      type: 'onejob.test.load',
      subject: `load-${(offset + i) % 50}`,
      data: { i: offset + i },
    });
    ids.push(event.id);
  }
  return ids;
}

const backlogGauge = async () =>
  (await onejob.metrics.outboxBacklog.get()).values.find((v) => v.labels.publisher === 'nats')?.value ?? 0;
const oldestGauge = async () =>
  (await onejob.metrics.outboxOldestAge.get()).values.find((v) => v.labels.publisher === 'nats')?.value ?? 0;

describe('NATS unavailable under load', () => {
  it('the backlog grows while NATS is down, nothing is lost, and it drains when NATS returns', async () => {
    const before = await writeEvents(100, 0);
    await until(
      'the first events to be published',
      async () => (await deliveryCounts(onejob.pool, 'nats')).published === 100,
    );

    await stopNats();
    const during = await writeEvents(400, 100);
    await until(
      'onejob_outbox_backlog to show the backlog',
      async () => (await backlogGauge()) >= 400,
      20_000,
    );
    expect(await oldestGauge()).toBeGreaterThan(0);
    const counts = await deliveryCounts(onejob.pool, 'nats');
    expect(counts.published).toBe(100);
    expect(counts.pending).toBe(400);
    // A broker that is down is not the events' fault: nothing became a dead letter.
    expect(counts.dead).toBeUndefined();

    await startNats();
    await until(
      'the backlog to drain',
      async () => (await deliveryCounts(onejob.pool, 'nats')).published === 500,
      45_000,
    );
    await until('onejob_outbox_backlog to return to 0', async () => (await backlogGauge()) === 0, 10_000);

    const stored = await streamMessages(stream, url);
    const ids = stored.map((m) => m.msgId);
    expect(new Set(ids).size).toBe(stored.length);
    expect(new Set(ids)).toEqual(new Set([...before, ...during]));
  });
});
