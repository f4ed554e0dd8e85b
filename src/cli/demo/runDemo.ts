// `onejob demo`: replays the mission's story against a running server, one scene at a time.
// Scenes that need the demo config (a provider that never answers, a slow primary, a signed
// webhook source) say so and how to get it, instead of failing.
import { Webhook } from 'standardwebhooks';
import {
  createClient,
  isOnejobClientError,
  type Job,
  newIntentKey,
  type OnejobClient,
} from '../../client/index.js';
import { DEMO_SECRET_ENV } from './demoConfig.js';
import type { DemoPrinter } from './demoPrinter.js';

export interface DemoContext {
  client: OnejobClient;
  baseUrl: string;
  token: string;
  print: DemoPrinter;
  env: NodeJS.ProcessEnv;
}

const NEEDS_DEMO_CONFIG = 'the server needs the demo config (the recipe is printed at the end)';

/**
 * How a scene went: `ran` showed what it promises; `partial` ran without its point (no
 * admin token, so no verified fallback); `skipped` lacked the demo config; `stopped` failed.
 */
export type SceneOutcome = 'ran' | 'partial' | 'skipped' | 'stopped';

export type Scene = (ctx: DemoContext, n: number) => Promise<SceneOutcome>;

const attempts = (job: Job) =>
  job.attempts
    .map((a) => `#${a.n} ${a.provider} ${a.id === job.completedBy ? 'winner' : a.state}`)
    .join(', ') || 'none';

export const SCENES: readonly Scene[] = [
  doubleClick,
  stalledThenFallback,
  timeoutUnknown,
  reverseOrderRace,
  webhookRedelivered,
];

/** Runs the scenes in order; resolves to how each went, for the closing lines. */
export async function runDemo(ctx: DemoContext, scenes: readonly Scene[] = SCENES): Promise<SceneOutcome[]> {
  const outcomes: SceneOutcome[] = [];
  for (const [i, scene] of scenes.entries()) {
    try {
      outcomes.push(await scene(ctx, i + 1));
    } catch (error) {
      if (
        isOnejobClientError(error, 'operation_unknown') ||
        isOnejobClientError(error, 'source_unknown') ||
        isOnejobClientError(error, 'route_not_found')
      ) {
        ctx.print.note(
          `skipped: this server lacks what the scene needs (${error.code}); ${NEEDS_DEMO_CONFIG}.`,
        );
        outcomes.push('skipped');
      } else {
        ctx.print.note(`the scene stopped: ${error instanceof Error ? error.message : String(error)}`);
        outcomes.push('stopped');
      }
    }
  }
  return outcomes;
}

export async function doubleClick({ client, print }: DemoContext, n: number): Promise<SceneOutcome> {
  print.scene(n, 'A double click', 'The browser sends the same "pay 19.99" twice, a few milliseconds apart.');
  const key = newIntentKey('checkout-');
  const [a, b] = await Promise.all([
    client.jobs.submit('charge', { amount: 1999, currency: 'USD' }, { idempotencyKey: key }),
    client.jobs.submit('charge', { amount: 1999, currency: 'USD' }, { idempotencyKey: key }),
  ]);
  print.naive('two requests, two jobs, the customer is charged twice.');
  print.onejob(
    `two requests, one job ${a.job.id} (the second answer was replayed: ${a.replayed || b.replayed}).`,
  );
  const ids = new Set([a.job.id, b.job.id]);
  if (ids.size !== 1) throw new Error(`expected one job id, got ${[...ids].join(', ')}`);
  const job = await client.jobs.wait(a.job.id, { timeoutMs: 10_000 });
  print.onejob(`job state ${job.state}; attempts: ${attempts(job)} — one effect.`);
  print.link(job.id);
  return 'ran';
}

export async function stalledThenFallback(
  { client, baseUrl, token, print }: DemoContext,
  n: number,
): Promise<SceneOutcome> {
  print.scene(
    n,
    'A stalled request, then the fallback button',
    'The first request gets no answer in time; the user clicks "try another way".',
  );
  const key = newIntentKey('checkout-');
  // The first request reaches the server but its answer never reaches the user.
  const lost = new AbortController();
  const first = fetch(`${baseUrl}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ operation: 'charge', input: { amount: 4200, currency: 'USD' } }),
    signal: lost.signal,
  });
  await first.then((r) => r.body?.cancel()).catch(() => undefined);
  print.step('request 1 committed on the server; the user saw a spinner and nothing else.');
  const { job, replayed } = await client.jobs.submit(
    'charge',
    { amount: 4200, currency: 'USD' },
    { idempotencyKey: key },
  );
  print.naive('the fallback button posts a new request: a second job, a second charge.');
  print.onejob(`the fallback button reuses the intent key: job ${job.id} again (replayed: ${replayed}).`);
  try {
    const attempt = await client.jobs.retry(job.id);
    // Request 1's job may not have been claimed yet: then the button starts its first attempt.
    const which =
      attempt.n === 1
        ? `the job's first attempt, #1 on ${attempt.provider} (request 1's job had not started yet)`
        : `attempt #${attempt.n} on ${attempt.provider}, after #1${attempt.n > 2 ? `..#${attempt.n - 1}` : ''}`;
    print.onejob(`the fallback button started ${which}, under the same job, never a new job.`);
  } catch (error) {
    if (!isOnejobClientError(error)) throw error;
    print.onejob(`asking for a new attempt answered ${error.code}: ${error.detail}`);
  }
  const settled = await client.jobs.wait(job.id, { timeoutMs: 10_000 });
  print.onejob(`job state ${settled.state}; attempts: ${attempts(settled)}.`);
  print.link(job.id);
  return 'ran';
}

export async function timeoutUnknown(
  { client, baseUrl, print, env }: DemoContext,
  n: number,
): Promise<SceneOutcome> {
  print.scene(
    n,
    'A timeout leaves the job unknown',
    'The provider never answers. Did it charge? Nobody knows yet.',
  );
  // The fallback button may send the job to sim-quick only once it passed verification.
  const verified = await verifyFallback(baseUrl, env, 'demo-timeout');
  const job = await client.jobs.create(
    'demo-timeout',
    { amount: 990 },
    { idempotencyKey: newIntentKey('slow-') },
  );
  const unknown = await client.jobs.wait(job.id, {
    timeoutMs: 15_000,
    until: (j) => j.state === 'unknown' || ['succeeded', 'failed', 'cancelled'].includes(j.state),
  });
  print.naive('marks the job failed and retries: if the first call went through, that is a second charge.');
  print.onejob(`job state ${unknown.state}; attempts: ${attempts(unknown)}.`);
  try {
    await client.jobs.retry(job.id);
    print.note('the server allowed a new attempt while the outcome was unknown.');
  } catch (error) {
    if (!isOnejobClientError(error)) throw error;
    print.onejob(`a new attempt is refused while the outcome is unknown: ${error.code}.`);
  }
  const open = unknown.attempts.find((a) => a.state === 'unknown');
  if (!open) {
    print.link(job.id);
    return 'partial';
  }
  await client.jobs.abandon(job.id, open.n, 'demo: the provider confirmed it never charged');
  print.onejob(
    `an operator checked with the provider and abandoned attempt #${open.n}; a late answer from it would be discarded.`,
  );
  if (!verified) {
    print.note(
      "no fallback: sim-quick needs a passing contract verification; run the demo with ONEJOB_ADMIN_TOKEN set to the server's admin token so it verifies sim-quick first.",
    );
    print.link(job.id);
    return 'partial';
  }
  try {
    const attempt = await client.jobs.retry(job.id, { provider: 'sim-quick' });
    print.onejob(`the fallback button started attempt #${attempt.n} on ${attempt.provider}.`);
  } catch (error) {
    // The worker's own retry after the abandon may have gone to the fallback first.
    if (!isOnejobClientError(error, 'attempt_in_flight')) throw error;
    print.onejob('the worker had already retried on the fallback.');
  }
  const settled = await client.jobs.wait(job.id, { timeoutMs: 15_000 });
  print.onejob(`job state ${settled.state}; attempts: ${attempts(settled)}.`);
  print.link(job.id);
  return settled.state === 'succeeded' ? 'ran' : 'partial';
}

/**
 * A fallback is used only after its contract verification passed; with the admin token
 * the demo verifies sim-quick for the operation first, as an operator would.
 */
async function verifyFallback(baseUrl: string, env: NodeJS.ProcessEnv, operation: string): Promise<boolean> {
  const admin = env.ONEJOB_ADMIN_TOKEN;
  if (!admin) return false;
  await createClient({ baseUrl, token: admin }).providers.verify('sim-quick', operation);
  return true;
}

export async function reverseOrderRace(
  { client, baseUrl, print, env }: DemoContext,
  n: number,
): Promise<SceneOutcome> {
  print.scene(
    n,
    'Two attempts finish in reverse order',
    'The primary is slow; a hedge on the fallback starts later and answers first.',
  );
  // A hedge goes only to a fallback that passed contract verification; with the admin token
  // the demo verifies the fallback first, as an operator would.
  if (await verifyFallback(baseUrl, env, 'demo-race')) {
    print.onejob(
      'verified the fallback sim-quick against the demo-race contract before allowing failover to it.',
    );
  }
  const job = await client.jobs.create(
    'demo-race',
    { text: 'race' },
    { idempotencyKey: newIntentKey('race-') },
  );
  const done = await client.jobs.wait(job.id, {
    timeoutMs: 15_000,
    until: (j) =>
      ['succeeded', 'failed', 'cancelled', 'unknown'].includes(j.state) &&
      j.attempts.every((a) => a.finishedAt),
  });
  print.naive('both results are written; the last one to arrive overwrites the first, or both are appended.');
  const winner = done.attempts.find((a) => a.id === done.completedBy);
  print.onejob(`job ${done.state}; attempts: ${attempts(done)}.`);
  if (done.attempts.length < 2)
    print.note(
      "no hedge started: a hedge goes only to a fallback whose contract verification passed; run the demo with ONEJOB_ADMIN_TOKEN set to the server's admin token so it verifies sim-quick first.",
    );
  if (winner)
    print.onejob(
      `attempt #${winner.n} (${winner.provider}) won the compare-and-swap; a later result is discarded and recorded, not merged.`,
    );
  print.link(job.id);
  return done.attempts.length >= 2 && winner ? 'ran' : 'partial';
}

export async function webhookRedelivered(
  { baseUrl, print, env }: DemoContext,
  n: number,
): Promise<SceneOutcome> {
  print.scene(
    n,
    'A webhook redelivered three times',
    'The payment provider did not get our 2xx in time and sends the event again, and again.',
  );
  const secret = env[DEMO_SECRET_ENV];
  if (!secret) {
    print.note(
      `skipped: set ${DEMO_SECRET_ENV} to the server's secret for the demo-payments source; ${NEEDS_DEMO_CONFIG}.`,
    );
    return 'skipped';
  }
  const webhook = new Webhook(secret);
  const eventId = `evt_${newIntentKey().replaceAll('-', '').slice(0, 20)}`;
  const payload = JSON.stringify({ amount: 1250, currency: 'USD' });
  const answers: { status: number; jobId?: string; replayed: boolean }[] = [];
  for (let i = 0; i < 4; i++) {
    // Each delivery carries a new timestamp and signature; only the event id stays.
    const at = new Date(Date.now() + i * 1000);
    const res = await fetch(`${baseUrl}/v1/inbox/demo-payments`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': eventId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': webhook.sign(eventId, at, payload),
      },
      body: payload,
    });
    const body = (await res.json()) as { jobId?: string; code?: string };
    if (res.status === 404)
      throw Object.assign(new Error('no demo-payments source'), { code: 'source_unknown' });
    answers.push({
      status: res.status,
      jobId: body.jobId,
      replayed: res.headers.get('idempotent-replayed') === 'true',
    });
  }
  print.naive(
    'four deliveries, four charges (a fingerprint with the timestamp in it sees four different events).',
  );
  const jobs = new Set(answers.map((a) => a.jobId));
  print.onejob(
    `four deliveries of ${eventId}: answers ${answers.map((a) => `${a.status}${a.replayed ? ' replayed' : ''}`).join(', ')}; ${jobs.size} job.`,
  );
  const [jobId] = [...jobs];
  if (jobId) print.link(jobId);
  return jobs.size === 1 ? 'ran' : 'stopped';
}
