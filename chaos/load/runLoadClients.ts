// Clients that behave like real senders: users who double-click and retry with the same
// key after a lost answer, a payment provider that redelivers webhooks with fresh
// timestamps and signatures, a ledger client retrying a transfer with the same id, and an
// application that creates a job inside a transaction it then rolls back.
import type pg from 'pg';
import { Webhook } from 'standardwebhooks';
import type { OnejobConfig } from '../../src/config/types.js';
import { createJob } from '../../src/jobs/createJob.js';
import { operationInputChecks } from '../../src/operations/operationInputChecks.js';
import { OperationRegistry } from '../../src/operations/operationRegistry.js';
import { WEBHOOK_SOURCE } from '../cluster/chaosConfig.js';
import { type DatabaseTarget, resilientPool } from '../cluster/resilientPool.js';
import type { ApiCall, Features } from '../history/types.js';
import { createRng, type Rng } from '../random/createRng.js';
import { httpCall } from './httpCall.js';

export const OWNERS = [
  { token: 'chaos-token-1', owner: 'owner-1' },
  { token: 'chaos-token-2', owner: 'owner-2' },
];
export const API_KEYS = OWNERS.map((o) => `${o.token}=${o.owner}`).join(',');
const ACCOUNTS = ['cash', 'revenue', 'fees', 'escrow'];

export interface LoadOptions {
  seed: number;
  clients: number;
  /** API processes to send to (a dead one answers nothing; the client tries another). */
  apis: () => { name: string; url: string }[];
  features: Features;
  webhookSecret: string;
  /** The harness's own connections: a URL, or the current primary's. */
  databaseUrl: DatabaseTarget;
  config: OnejobConfig;
  record: (call: ApiCall) => void;
  recordRollback: (owner: string, key: string) => void;
  /** Pause between a client's intents. */
  thinkMs?: number;
  /** Pure inference operations to create jobs for, when the build runs them (hedges, fallbacks). */
  inferenceOperations?: readonly string[];
  /** Share of job intents that go to an inference operation (default 0.35). */
  inferenceShare?: number;
  /** Library-mode processes taking intents for their code operation at POST /code-jobs. */
  libraries?: () => { name: string; url: string }[];
  /** Share of job intents sent to a library process (default 0.1). */
  libraryShare?: number;
  /**
   * A steady rate for all clients together, read before every intent (the soak changes it
   * after measuring capacity). Unset or 0: each client pauses `thinkMs` between intents.
   */
  pace?: { perSecond?: number };
}

export interface LoadClients {
  stop(): Promise<void>;
  intents(): number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function runLoadClients(o: LoadOptions): LoadClients {
  let running = true;
  let intents = 0;
  const webhook = new Webhook(o.webhookSecret);
  const pool = resilientPool(o.databaseUrl, 2);
  const operations = new OperationRegistry({ config: o.config, inputChecks: operationInputChecks });

  // Sends until an answer that is not "try again" (no answer, 503), up to a bound.
  async function untilAnswered(
    rng: Rng,
    send: (target: { name: string; url: string }) => Promise<ApiCall>,
    targets = o.apis,
  ) {
    for (let tries = 0; tries < 30 && running; tries++) {
      const call = await send(rng.pick(targets()));
      if (call.status !== 0 && call.status !== 503) return call;
      await pause(100 + rng.int(0, 200));
    }
    return undefined;
  }

  async function intent(client: string, rng: Rng, i: number) {
    const who = rng.pick(OWNERS);
    const key = `${client}-k${i}`;
    const inference = o.inferenceOperations ?? [];
    const libraries = o.libraries;
    if (libraries && libraries().length > 0 && rng.chance(o.libraryShare ?? 0.1))
      return codeIntent(client, rng, who, key, libraries);
    const pure = inference.length > 0 && rng.chance(o.inferenceShare ?? 0.35);
    const body = pure
      ? JSON.stringify({
          operation: rng.pick(inference),
          input: { text: `intent ${key} ${rng.int(1, 1e6)}` },
        })
      : JSON.stringify({ operation: 'charge', input: { amount: rng.int(1, 10_000) } });
    const post = (target: { name: string; url: string }, b = body) =>
      createCall(client, who, key, target, '/v1/jobs', b, {
        authorization: `Bearer ${who.token}`,
        'idempotency-key': key,
      });
    // A double-click: two POSTs with one key at once, often to two API processes.
    if (rng.chance(0.3)) await Promise.all([untilAnswered(rng, post), untilAnswered(rng, post)]);
    else await untilAnswered(rng, post);
    // The answer was lost on the way (as far as the user knows): send it again.
    if (rng.chance(0.2)) await untilAnswered(rng, post);
    // The same key for a different intent: must be refused, never a second job.
    if (rng.chance(0.05)) {
      const other = JSON.stringify({ operation: 'charge', input: { amount: 10_001 } });
      await untilAnswered(rng, (t) => post(t, other));
    }
  }

  /** One create request of `who` under `key` to `target`, recorded as a call of `client`. */
  function createCall(
    client: string,
    who: (typeof OWNERS)[number],
    key: string,
    target: { name: string; url: string },
    path: string,
    body: string,
    headers?: Record<string, string>,
  ) {
    return httpCall(
      {
        client,
        kind: 'create',
        owner: who.owner,
        key,
        target,
        method: 'POST',
        path,
        ...(headers ? { headers } : {}),
        body,
      },
      o.record,
    ).then((a) => a.call);
  }

  /** An intent for the code operation of a library-mode process, with the same retries. */
  async function codeIntent(
    client: string,
    rng: Rng,
    who: (typeof OWNERS)[number],
    key: string,
    libraries: () => { name: string; url: string }[],
  ) {
    const text = `code ${key} ${rng.int(1, 1e6)}`;
    const post = (target: { name: string; url: string }, t = text) =>
      createCall(
        client,
        who,
        key,
        target,
        '/code-jobs',
        JSON.stringify({ owner: who.owner, key, input: { text: t } }),
      );
    if (rng.chance(0.3))
      await Promise.all([untilAnswered(rng, post, libraries), untilAnswered(rng, post, libraries)]);
    else await untilAnswered(rng, post, libraries);
    if (rng.chance(0.2)) await untilAnswered(rng, post, libraries);
    if (rng.chance(0.05)) await untilAnswered(rng, (t) => post(t, `${text} changed`), libraries);
  }

  async function webhookDelivery(client: string, rng: Rng, i: number) {
    const eventId = `evt-${client}-${i}`;
    const payload = JSON.stringify({ type: 'payment.succeeded', amount: rng.int(1, 5_000) });
    const deliveries = rng.int(2, 3);
    for (let d = 0; d < deliveries && running; d++) {
      await untilAnswered(rng, (target) => {
        // Every delivery is signed afresh, with its own timestamp, as providers do.
        const at = new Date();
        return httpCall(
          {
            client,
            kind: 'inbox',
            owner: 'acme',
            key: eventId,
            source: WEBHOOK_SOURCE,
            target,
            method: 'POST',
            path: `/v1/inbox/${WEBHOOK_SOURCE}`,
            headers: {
              'webhook-id': eventId,
              'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
              'webhook-signature': webhook.sign(eventId, at, payload),
            },
            body: payload,
          },
          o.record,
        ).then((a) => a.call);
      });
    }
  }

  async function transfer(client: string, rng: Rng, i: number) {
    const who = rng.pick(OWNERS);
    const [debit, credit] = rng.shuffle(ACCOUNTS);
    const id = `${client}-t${i}`;
    const body = JSON.stringify({
      id,
      debitAccount: debit,
      creditAccount: credit,
      amount: rng.int(1, 1_000),
      currency: 'USD',
    });
    const send = (target: { name: string; url: string }) =>
      httpCall(
        {
          client,
          kind: 'transfer',
          owner: who.owner,
          key: id,
          target,
          method: 'POST',
          path: '/v1/ledger/transfers',
          headers: { authorization: `Bearer ${who.token}` },
          body,
        },
        o.record,
      ).then((a) => a.call);
    await untilAnswered(rng, send);
    if (rng.chance(0.3)) await untilAnswered(rng, send);
  }

  async function rolledBack(client: string, rng: Rng, i: number) {
    const who = rng.pick(OWNERS);
    const key = `rollback-${client}-${i}`;
    let db: pg.PoolClient | undefined;
    try {
      db = await pool.connect();
      await db.query('BEGIN');
      await createJob(db, operations, {
        ownerId: who.owner,
        idempotencyKey: key,
        operation: 'charge',
        input: { amount: 1 },
      });
      o.recordRollback(who.owner, key);
      await db.query('ROLLBACK');
    } catch {
      // The database is away: nothing was committed either way.
      await db?.query('ROLLBACK').catch(() => undefined);
    } finally {
      db?.release();
    }
  }

  // The next free slot of the shared rate: intents start at most perSecond per second.
  let nextSlot = 0;
  async function waitTurn(rng: Rng) {
    const rate = o.pace?.perSecond ?? 0;
    if (rate <= 0) return pause(o.thinkMs ?? rng.int(5, 40));
    const now = Date.now();
    const at = Math.max(now, nextSlot);
    nextSlot = at + 1000 / rate;
    if (at > now) await pause(at - now);
  }

  async function client(n: number) {
    const name = `c${n}`;
    const rng = createRng(o.seed * 1_000 + n);
    for (let i = 1; running; i++) {
      const roll = rng.next();
      if (roll < 0.6) await intent(name, rng, i);
      else if (roll < 0.75 && o.features.inbox) await webhookDelivery(name, rng, i);
      else if (roll < 0.9 && o.features.ledger) await transfer(name, rng, i);
      else if (roll < 0.95) await rolledBack(name, rng, i);
      else await intent(name, rng, i);
      intents++;
      await waitTurn(rng);
    }
  }

  const loops = Array.from({ length: o.clients }, (_, n) => client(n + 1));
  return {
    intents: () => intents,
    async stop() {
      running = false;
      await Promise.allSettled(loops);
      await pool.end().catch(() => undefined);
    },
  };
}
