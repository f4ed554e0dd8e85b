// A library-mode process inside the chaos fleet: an application that embeds onejob with
// `createOnejob`, defines a code operation with `defineOperation` and runs its worker with
// `start()`. It takes intents over a small HTTP endpoint (the load clients double-click and
// retry it like the API) and runs the jobs in this process, beside the service processes
// on the same database. Started as `node --import tsx chaos/cluster/libraryProcess.ts`
// with DATABASE_URL and PORT.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { text } from 'node:stream/consumers';
import { isDatabaseUnavailable } from '../../src/db/sqlstate.js';
import { createOnejob, defineOperation, isOnejobError, migrate } from '../../src/index.js';

export const CODE_OPERATION = 'tally';
/** Longer than a code attempt's timeout: the attempt times out and its run answers late. */
const SLOW_MS = 1_300;
const ATTEMPT_TIMEOUT_MS = 1_000;

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const port = Number(process.env.PORT ?? 0);

let answers = 0;
const tally = defineOperation(CODE_OPERATION, {
  inputSchema: {
    type: 'object',
    required: ['text'],
    properties: { text: { type: 'string', minLength: 1, maxLength: 200 } },
  } as const,
  effect: 'pure',
  attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
  maxAttempts: 3,
  retry: { baseDelayMs: 50, maxDelayMs: 300 },
  async run(ctx) {
    // Mostly quick; one run in ten ignores its signal past the deadline and answers late.
    const slow = Math.random() < 0.1;
    await new Promise((r) => setTimeout(r, slow ? SLOW_MS : 5 + Math.floor(Math.random() * 40)));
    const digest = createHash('sha256').update(ctx.input.text).digest('hex').slice(0, 16);
    return { digest, attempt: ctx.attempt, answerId: `code-${process.pid}-${++answers}` };
  },
});

await migrate(databaseUrl);
const onejob = createOnejob({
  connectionString: databaseUrl,
  config: {
    providers: {},
    operations: {},
    worker: { leaseMs: 2_000, pollMs: 100, graceMs: 1_000 },
  },
  operations: [tally],
});
await onejob.start({ roles: ['worker'] });

// POST /code-jobs {owner, key, input}: one job per (owner, key), as the API answers.
const server = createServer(async (req, res) => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  if (req.method !== 'POST' || req.url !== '/code-jobs') return answer(404, { code: 'route_not_found' });
  try {
    const body = JSON.parse(await text(req)) as { owner: string; key: string; input: { text: string } };
    const { job, replayed } = await onejob.jobs.create({
      ownerId: body.owner,
      idempotencyKey: body.key,
      operation: CODE_OPERATION,
      input: body.input,
    });
    return answer(202, { id: job.id }, replayed ? { 'idempotent-replayed': 'true' } : {});
  } catch (error) {
    if (isOnejobError(error)) return answer(error.status, { code: error.code });
    // The database is away (restart, stall): the caller retries with the same key.
    if (isDatabaseUnavailable(error)) return answer(503, { code: 'database_unavailable' });
    // Anything else is a failure the checker must see (no_500_answers).
    process.stderr.write(`library: ${(error as Error).stack ?? String(error)}\n`);
    return answer(500, { code: 'internal_error', message: (error as Error).message });
  }
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`onejob is running (library mode, operation ${CODE_OPERATION}, port ${port})\n`);
});

const shutdown = () => {
  server.close();
  void onejob.close().finally(() => process.exit(0));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
