// `onejob jobs ...`: create and follow jobs against a running server, through the client SDK.
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { isJobState, JOB_STATES, type JobState, newIntentKey } from '../../client/index.js';
import { parseInstant } from '../../time/parseInstant.js';
import { cliClient, clientConfig } from '../clientConfig.js';
import { formatTable, printJson, shortTime } from '../formatTable.js';
import { printText } from '../terminalText.js';
import { formatJob, formatJobList } from './jobsFormat.js';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
}

/** --run-at: checked by the server's own instant parser, so a typo fails here, before any request. */
function runAt(value: string): string {
  if (parseInstant(value) === undefined) {
    throw new InvalidArgumentError(
      'expected an RFC 3339 instant with a time zone, such as 2030-01-31T14:02:00Z or 2030-01-31T15:02:00+01:00',
    );
  }
  return value;
}

function parseInput(text: string | undefined, file: string | undefined): Record<string, unknown> {
  const source = file ? readFileSync(file === '-' ? 0 : file, 'utf8') : (text ?? '{}');
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    throw new Error(`the input is not valid JSON: ${source.slice(0, 80)}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Error('the input must be a JSON object');
  return value as Record<string, unknown>;
}

export function jobsCommand(program: Command) {
  const jobs = program
    .command('jobs')
    .description('create and follow jobs on a running server ($ONEJOB_URL, default http://127.0.0.1:8080)')
    .addHelpText(
      'after',
      '\nThe token comes from $ONEJOB_TOKEN, else from .onejob/api-key (the development token of `onejob serve`).',
    );
  intakeCommands(jobs);
  readCommands(jobs);
  buttonCommands(jobs);
}

/** `jobs create`: one job per intent, with the key printed so a retry can reuse it. */
function intakeCommands(jobs: Command) {
  jobs
    .command('create')
    .description('create the job for one intent (the same --key returns the same job)')
    .argument('<operation>', 'operation name, e.g. charge')
    .argument('[input]', 'input as a JSON object', '{}')
    .option(
      '-k, --key <key>',
      'idempotency key of the intent (default: a new key, printed so a retry can reuse it)',
    )
    .option('-f, --input-file <file>', 'read the input JSON from a file (- for stdin)')
    .option(
      '--run-at <instant>',
      'do not start the job before this RFC 3339 instant (a past one runs now); part of the intent, like the input',
      runAt,
    )
    .option('-w, --wait [ms]', 'wait for the job to settle (default up to 60000 ms)')
    .option('--json', 'print the job as JSON')
    .action(
      async (
        operation: string,
        input: string,
        o: { key?: string; inputFile?: string; runAt?: string; wait?: string | true; json?: boolean },
      ) => {
        const client = cliClient();
        const key = o.key ?? newIntentKey();
        if (!o.key && !o.json)
          process.stderr.write(`idempotency key: ${key}   (pass --key ${key} to retry this intent)\n`);
        const { job, replayed } = await client.jobs.submit(operation, parseInput(input, o.inputFile), {
          idempotencyKey: key,
          ...(o.runAt !== undefined && { runAt: o.runAt }),
        });
        const final = o.wait
          ? await client.jobs.wait(job.id, { timeoutMs: o.wait === true ? 60_000 : positiveInt(o.wait) })
          : job;
        if (o.json) return printJson(final);
        printText(
          `${formatJob(final, replayed ? 'replayed: this key already named this job' : 'created')}\n`,
        );
        printText(`\nopen ${clientConfig().url}/#/jobs/${job.id}\n`);
      },
    );
}

/** `jobs get`, `jobs list` and `jobs wait`: reads. */
function readCommands(jobs: Command) {
  jobs
    .command('get')
    .description('show a job and its attempts')
    .argument('<id>', 'job id')
    .option('--json', 'print the job as JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const job = await cliClient().jobs.get(id);
      if (o.json) return printJson(job);
      printText(`${formatJob(job)}\n`);
    });

  jobs
    .command('list')
    .description('list jobs, newest first')
    .option('-s, --state <state>', `only jobs in this state (${JOB_STATES.join(', ')})`)
    .option('-o, --operation <operation>', 'only jobs of this operation')
    .option('-k, --key <key>', 'the job of this idempotency key')
    .option('--waiting', 'only queued jobs whose --run-at is still ahead')
    .option('-n, --limit <n>', 'jobs per page (1 to 200)', positiveInt, 20)
    .option('--cursor <cursor>', 'continue after a previous page')
    .option('--json', 'print the page as JSON ({items, nextCursor})')
    .action(
      async (o: {
        state?: string;
        operation?: string;
        key?: string;
        waiting?: boolean;
        limit: number;
        cursor?: string;
        json?: boolean;
      }) => {
        if (o.state && !isJobState(o.state))
          throw new Error(`--state must be one of ${JOB_STATES.join(', ')}`);
        const page = await cliClient().jobs.list({
          state: o.state as JobState | undefined,
          operation: o.operation,
          idempotencyKey: o.key,
          ...(o.waiting && { waiting: true }),
          limit: o.limit,
          cursor: o.cursor,
        });
        if (o.json) return printJson(page);
        printText(`${formatJobList(page.items)}\n`);
        if (page.nextCursor) printText(`\nmore: onejob jobs list --cursor ${page.nextCursor}\n`);
      },
    );

  jobs
    .command('wait')
    .description('wait until a job settles (succeeded, failed, cancelled or unknown)')
    .argument('<id>', 'job id')
    .option('-t, --timeout <ms>', 'give up after this long and show the job as it is', positiveInt, 60_000)
    .option('--json', 'print the job as JSON')
    .action(async (id: string, o: { timeout: number; json?: boolean }) => {
      const job = await cliClient().jobs.wait(id, { timeoutMs: o.timeout });
      if (o.json) return printJson(job);
      printText(`${formatJob(job)}\n`);
    });
}

/** `jobs retry`, `jobs abandon` and `jobs cancel`: the operator's buttons. */
function buttonCommands(jobs: Command) {
  jobs
    .command('retry')
    .description('start a new attempt now (the fallback button); refused while one is running or unknown')
    .argument('<id>', 'job id')
    .option('-p, --provider <name>', 'run it on this provider (a fallback must have passed verification)')
    .option('--json', 'print the attempt as JSON')
    .action(async (id: string, o: { provider?: string; json?: boolean }) => {
      const attempt = await cliClient().jobs.retry(id, { provider: o.provider });
      if (o.json) return printJson(attempt);
      printText(
        `${formatTable(['N', 'PROVIDER', 'STATE', 'STARTED'], [[attempt.n, attempt.provider, attempt.state, shortTime(attempt.startedAt)]])}\n`,
      );
    });

  jobs
    .command('abandon')
    .description('give up on an unknown or running attempt: it can never complete the job')
    .argument('<id>', 'job id')
    .argument('<n>', 'attempt number', positiveInt)
    .requiredOption(
      '-r, --reason <text>',
      'why, for the record (e.g. "checked with the provider: not charged")',
    )
    .option('--json', 'print the answer as JSON')
    .action(async (id: string, n: number, o: { reason: string; json?: boolean }) => {
      const client = cliClient();
      const answer = await client.jobs.abandon(id, n, o.reason);
      if (o.json) return printJson(answer);
      printText(`attempt ${n} abandoned\n\n${formatJob(await client.jobs.get(id))}\n`);
    });

  jobs
    .command('cancel')
    .description('cancel a job that has no final outcome yet')
    .argument('<id>', 'job id')
    .option('--json', 'print the job as JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const job = await cliClient().jobs.cancel(id);
      if (o.json) return printJson(job);
      printText(`${formatJob(job, 'cancelled')}\n`);
    });
}
