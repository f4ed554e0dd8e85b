// A publisher's position over the event log moves in commit order: an event written by a
// transaction that commits after later events were published is still published, once.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvent } from '../../src/outbox/publishEvent.js';
import type { OutboxEvent, Publisher } from '../../src/outbox/publisher.js';
import { registerPublishers } from '../../src/outbox/registerPublishers.js';
import { relayBatch } from '../../src/outbox/relayBatch.js';
import { Gate } from '../helpers/fakePaymentServer.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

let db: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 6 });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const POLICY = { maxDeliveries: 3, retryBaseMs: 1, retryMaxMs: 1 };

/** A publisher that records what it accepted, optionally held at a gate before its first accept. */
function recordingPublisher(name: string, gate?: Gate, reached?: () => void) {
  const accepted: string[] = [];
  const publisher: Publisher = {
    name,
    kind: 'test',
    concurrency: 4,
    async publish(e: OutboxEvent) {
      if (gate && !gate.isOpen) {
        reached?.();
        await gate.wait();
      }
      accepted.push(e.subject);
      return {};
    },
    async close() {},
  };
  return { publisher, accepted };
}

/** Passes until one claims nothing. */
async function drain(publisher: Publisher, batchSize = 100): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if ((await relayBatch(pool, publisher, POLICY, batchSize)).claimed === 0) return;
  }
  throw new Error('the relay never ran dry');
}

describe("a publisher's position in the event log", () => {
  it('an event whose transaction commits after later events were published is published once, after them', async () => {
    const { publisher, accepted } = recordingPublisher('late-commit');
    await registerPublishers(pool, [publisher]);
    await drain(publisher);
    accepted.length = 0;

    // The long transaction writes first: its event has the lower seq and the lower xid.
    const long = await pool.connect();
    try {
      await long.query('BEGIN');
      await publishEvent(long, { type: 'onejob.test.late', subject: 'late-1' });
      for (const s of ['early-1', 'early-2', 'early-3'])
        await publishEvent(pool, { type: 'onejob.test.early', subject: s });
      // Batches of one: the position passes the three later events, a window at a time,
      // while the long transaction is still open.
      await drain(publisher, 1);
      expect(accepted).toEqual(['early-1', 'early-2', 'early-3']);
      await long.query('COMMIT');
    } finally {
      long.release();
    }
    await drain(publisher, 1);
    await drain(publisher, 1);
    expect(accepted).toEqual(['early-1', 'early-2', 'early-3', 'late-1']);
  });

  it('an event committed while a pass is publishing (held at a gate) is published by the next pass, once', async () => {
    const gate = new Gate();
    let reached!: () => void;
    const atGate = new Promise<void>((r) => {
      reached = r;
    });
    const { publisher, accepted } = recordingPublisher('gated', gate, reached);
    await registerPublishers(pool, [publisher]);

    const long = await pool.connect();
    try {
      await long.query('BEGIN');
      await publishEvent(long, { type: 'onejob.test.late', subject: 'gated-late' });
      await publishEvent(pool, { type: 'onejob.test.early', subject: 'gated-early' });
      // The pass takes its snapshot with the long transaction in flight and stops at the gate.
      const pass = relayBatch(pool, publisher, POLICY, 100);
      await atGate;
      await long.query('COMMIT');
      gate.open();
      expect((await pass).published).toBeGreaterThanOrEqual(1);
    } finally {
      long.release();
    }
    await drain(publisher);
    expect(accepted.filter((s) => s.startsWith('gated-')).sort()).toEqual(['gated-early', 'gated-late']);
  });

  it('a rolled-back transaction leaves no event to publish', async () => {
    const { publisher, accepted } = recordingPublisher('rolled-back');
    await registerPublishers(pool, [publisher]);
    await drain(publisher);
    accepted.length = 0;
    const tx = await pool.connect();
    try {
      await tx.query('BEGIN');
      await publishEvent(tx, { type: 'onejob.test.gone', subject: 'never' });
      await tx.query('ROLLBACK');
    } finally {
      tx.release();
    }
    await publishEvent(pool, { type: 'onejob.test.kept', subject: 'kept' });
    await drain(publisher);
    expect(accepted).toEqual(['kept']);
  });

  it('a window many spans long, with events of a transaction still open between its own, is published once each, each subject in order', async () => {
    const seen: { subject: string; seq: bigint }[] = [];
    const publisher: Publisher = {
      name: 'long-window',
      kind: 'test',
      concurrency: 4,
      async publish(e: OutboxEvent) {
        seen.push({ subject: e.subject, seq: BigInt(e.seq) });
        return {};
      },
      async close() {},
    };
    await registerPublishers(pool, [publisher]);
    await drain(publisher);
    seen.length = 0;

    const long = await pool.connect();
    try {
      await long.query('BEGIN');
      // The open transaction's events sit between the others' in seq order: gaps in every
      // span the window is read in (batches of 10, spans of 80 seqs).
      for (let round = 0; round < 6; round++) {
        await publishEvent(long, { type: 'onejob.test.open', subject: `open-${round % 2}` });
        for (let i = 0; i < 100; i++)
          await publishEvent(pool, { type: 'onejob.test.window', subject: `w-${i % 7}` });
      }
      let passes = 0;
      while ((await relayBatch(pool, publisher, POLICY, 10)).claimed > 0) passes += 1;
      expect(seen).toHaveLength(600);
      expect(seen.some((e) => e.subject.startsWith('open-'))).toBe(false);
      // A pass per batch and a few for spans that held fewer: the window is not read again.
      expect(passes).toBeLessThan(600 / 10 + 20);
      await long.query('COMMIT');
    } finally {
      long.release();
    }
    await drain(publisher, 10);
    expect(seen).toHaveLength(606);
    expect(new Set(seen.map((e) => e.seq)).size).toBe(606);
    // Each subject's events went out in the order they were written.
    for (const subject of new Set(seen.map((e) => e.subject))) {
      const seqs = seen.filter((e) => e.subject === subject).map((e) => e.seq);
      expect(seqs, subject).toEqual([...seqs].sort((a, b) => (a < b ? -1 : 1)));
    }
  });

  it('two passes at once publish each event once: the position is locked by one, skipped by the other', async () => {
    const { publisher, accepted } = recordingPublisher('two-passes');
    await registerPublishers(pool, [publisher]);
    await drain(publisher);
    accepted.length = 0;
    for (let i = 0; i < 300; i++)
      await publishEvent(pool, { type: 'onejob.test.many', subject: `many-${i}` });
    await Promise.all([drain(publisher, 25), drain(publisher, 25), drain(publisher, 25)]);
    await drain(publisher, 25);
    expect(accepted).toHaveLength(300);
    expect(new Set(accepted).size).toBe(300);
  });
});
