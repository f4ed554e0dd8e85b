// Walks the README's quick start as a newcomer would, from a fresh clone of this
// repository's committed HEAD: `npm install`, `npm start`, read the admin token, run an
// operator command (`onejob outbox backlog`) from an empty folder with the CLI installed
// from the clone, send the README's three requests, run its SDK example with the official
// `openai` client against the built-in config (offline), and stop with Ctrl-C. Slow (it runs
// npm install and a first build), so it is `npm run test:quickstart`, outside `npm test`.
// Uncommitted changes are not part of the clone: commit first.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'onejob-quickstart-'));
const clone = join(work, 'onejob');
const results = [];
let server;
let postmaster = 0;

const env = () => {
  const clean = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('ONEJOB_') && !k.startsWith('npm_') && !['DATABASE_URL', 'LOG_FORMAT'].includes(k))
      clean[k] = v;
  return { ...clean, PORT: '0' }; // 8080 may be taken on this machine; the banner says where it listens
};

async function step(name, fn) {
  const began = Date.now();
  try {
    const note = await fn();
    results.push({ name, ok: true });
    console.log(`ok   ${name} (${((Date.now() - began) / 1000).toFixed(1)} s)${note ? `: ${note}` : ''}`);
  } catch (error) {
    results.push({ name, ok: false });
    console.log(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
    throw error;
  }
}

const check = (condition, message) => {
  if (!condition) throw new Error(message);
};

async function sh(file, args, options = {}) {
  return run(file, args, { env: env(), maxBuffer: 64 * 1024 * 1024, timeout: 600_000, ...options });
}

function until(what, fn, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = async () => {
      const value = await fn();
      if (value) return resolve(value);
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(poll, 100);
    };
    void poll();
  });
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

try {
  await step('git clone of the committed HEAD', async () => {
    await sh('git', ['clone', '--quiet', repo, clone]);
    return clone;
  });

  await step('npm install (builds dist/ through prepare)', async () => {
    const { stderr } = await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: clone,
    });
    check(existsSync(join(clone, 'dist', 'cli', 'main.js')), 'dist/cli/main.js was not built');
    check(stderr.includes('building dist/') || stderr === '', 'prepare did not say what it did');
  });

  let base;
  let output = '';
  await step('npm start: the banner names the API, the token and the admin token', async () => {
    server = spawn('npm', ['start'], {
      cwd: clone,
      env: env(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout.on('data', (d) => {
      output += d;
    });
    server.stderr.on('data', (d) => {
      output += d;
    });
    const line = await until('the banner', async () => /API\s+(http:\/\/\S+)\/v1\/jobs/.exec(output));
    base = line[1];
    await until('the end of the banner', async () => output.includes('Try it:'));
    check(/Token\s+oj_dev_\S+\s+\(owner "dev", kept in \.onejob\/api-key\)/.test(output), 'no Token line');
    check(/Admin\s+token kept in \.onejob\/admin-token/.test(output), 'no Admin line');
    check(/Config\s+built-in/.test(output), 'no Config line naming the built-in config');
    check(/Compat\s+gpt-4o-mini at http:\/\/\S+\/compat\/openai\/v1/.test(output), 'no Compat line');
    check((await fetch(`${base}/readyz`)).status === 200, '/readyz is not 200');
    return base;
  });

  const token = () => readFileSync(join(clone, '.onejob', 'api-key'), 'utf8').trim();
  const admin = () => readFileSync(join(clone, '.onejob', 'admin-token'), 'utf8').trim();

  await step('the README requests: 202, 202 replayed with the same id, 409', async () => {
    const job = (key, body) =>
      fetch(`${base}/v1/jobs`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token()}`,
          'idempotency-key': key,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
    const first = await job('order-42', { operation: 'charge', input: { amount: 1999 } });
    const again = await job('order-42', { operation: 'charge', input: { amount: 1999 } });
    const other = await job('order-42', { operation: 'charge', input: { amount: 5000 } });
    check(first.status === 202, `first answered ${first.status}`);
    check(again.status === 202 && again.headers.get('idempotent-replayed') === 'true', 'no replay');
    check((await first.json()).id === (await again.json()).id, 'two job ids for one key');
    check(other.status === 409, `a different body answered ${other.status}`);
  });

  await step(
    "the README's SDK example: the official openai client gets a completion, the same one again under the same key",
    async () => {
      // The README's own code, with the address this run listens on and the clone's token file.
      const readme = readFileSync(join(clone, 'README.md'), 'utf8');
      const example = /## Drop-in for the OpenAI and Anthropic SDKs[\s\S]*?```ts\n([\s\S]*?)```/.exec(
        readme,
      )?.[1];
      check(example?.includes("model: 'gpt-4o-mini'"), 'no SDK example in the README');
      const body = example
        .replace(/^import .*$/gm, '')
        .replaceAll('http://127.0.0.1:8080', base)
        .replaceAll("'.onejob/api-key'", JSON.stringify(join(clone, '.onejob', 'api-key')));
      const { default: OpenAI } = await import('openai');
      const printed = [];
      const AsyncFunction = (async () => {}).constructor;
      const runExample = new AsyncFunction(
        'OpenAI',
        'readFileSync',
        'console',
        `${body}\nreturn completion;`,
      );
      const quiet = { log: (...args) => printed.push(args.join(' ')) };
      const first = await runExample(OpenAI, readFileSync, quiet);
      const again = await runExample(OpenAI, readFileSync, quiet);
      check(typeof first.choices?.[0]?.message?.content === 'string', 'no completion text');
      check(first.id === again.id, `two completions for one key: ${first.id}, ${again.id}`);
      check(
        first.choices[0].message.content === again.choices[0].message.content,
        'another text for one key',
      );
      check(printed[0] === first.choices[0].message.content, 'the example printed something else');
      return printed[0];
    },
  );

  await step('npx onejob outbox backlog in the clone reads .onejob/admin-token', async () => {
    const { stdout } = await sh('npx', ['onejob', 'outbox', 'backlog'], {
      cwd: clone,
      env: { ...env(), ONEJOB_URL: base },
    });
    check(/PUBLISHER|no publisher/.test(stdout), `unexpected output: ${stdout}`);
  });

  await step('onejob outbox backlog from an empty folder, installed from the clone', async () => {
    const prefix = join(work, 'prefix');
    const empty = join(work, 'empty');
    mkdirSync(empty, { recursive: true });
    await sh('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', clone], { cwd: empty });
    const { stdout } = await sh(join(prefix, 'bin', 'onejob'), ['outbox', 'backlog'], {
      cwd: empty,
      env: { ...env(), ONEJOB_URL: base, ONEJOB_ADMIN_TOKEN: admin() },
    });
    check(/PUBLISHER|no publisher/.test(stdout), `unexpected output: ${stdout}`);
  });

  await step('Ctrl-C stops the server and its embedded PostgreSQL', async () => {
    postmaster = Number(readFileSync(join(clone, '.onejob', 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const owner = JSON.parse(readFileSync(join(clone, '.onejob', 'owner.json'), 'utf8')).pid;
    process.kill(-server.pid, 'SIGINT');
    await until('the server and PostgreSQL to stop', async () => !alive(owner) && !alive(postmaster), 60_000);
    check(output.includes('onejob: stopped'), 'no "onejob: stopped" line');
    server = undefined;
  });
} catch {
  // Reported by step(); the summary below counts it.
} finally {
  if (server && alive(server.pid)) process.kill(-server.pid, 'SIGKILL');
  if (!postmaster && existsSync(join(clone, '.onejob', 'pg', 'postmaster.pid')))
    postmaster = Number(readFileSync(join(clone, '.onejob', 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (postmaster && alive(postmaster)) process.kill(postmaster, 'SIGQUIT');
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  console.log(`quick start: ${passed} passed, ${failed} failed`);
  if (failed === 0) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work} for a look`);
  process.exitCode = failed === 0 ? 0 : 1;
}
