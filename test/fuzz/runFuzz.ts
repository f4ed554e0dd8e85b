// `npm run fuzz -- --seed N --requests N`: the HTTP fuzz (test/fuzz/httpFuzz.ts) for as
// long as asked, against the real server on a fresh database cloned from the migrated
// template. Prints the counts and exits 1 on any answer of 500 or more, any dropped
// connection, or any refused request that wrote a row.
import { parseArgs } from 'node:util';
import setup from '../helpers/globalSetup.js';
import { ADMIN_TOKEN, OWNER_A, OWNER_B, startTestApp } from '../helpers/startTestApp.js';
import { FUZZ_SECRET, FUZZ_SECRET_ENV, fuzzConfig, runFuzz, seedFuzzContext } from './httpFuzz.js';

const { values } = parseArgs({
  options: { seed: { type: 'string', default: '1' }, requests: { type: 'string', default: '10000' } },
});
const seed = Number(values.seed);
const requests = Number(values.requests);
if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(requests) || requests < 1) {
  console.error('usage: npm run fuzz -- --seed N --requests N');
  process.exit(2);
}

process.env[FUZZ_SECRET_ENV] = FUZZ_SECRET;
const teardown = await setup();
const t = await startTestApp({ config: fuzzConfig() });
const started = Date.now();
let report: Awaited<ReturnType<typeof runFuzz>>;
try {
  const context = await seedFuzzContext(t.url, {
    ownerToken: OWNER_A.token,
    otherToken: OWNER_B.token,
    adminToken: ADMIN_TOKEN,
  });
  report = await runFuzz({
    url: t.url,
    pool: t.onejob.pool,
    context,
    seed,
    requests,
    onProgress: (n) => {
      if (n % 1000 === 0) console.error(`${n} requests, ${Math.round((Date.now() - started) / 1000)} s`);
    },
  });
} finally {
  await t.close();
  await teardown();
}
console.log(JSON.stringify({ ...report, seconds: Math.round((Date.now() - started) / 1000) }, null, 2));
process.exit(report.serverErrors || report.dropped || report.refusedThatWrote ? 1 : 0);
