// `npm run bench`: node --import tsx bench/run.ts [options]. See docs/benchmarks.md.
import { Command } from 'commander';
import { addBenchOptions, benchOptionsFrom } from './benchOptions.js';
import { runBench } from './runBench.js';

// `onejob bench` names itself, so `--help` shows the command the user typed.
const program = addBenchOptions(
  new Command(process.env.ONEJOB_BENCH_COMMAND ?? 'npm run bench --').description(
    'measure onejob against the raw PostgreSQL limit and pg-boss / graphile-worker, in one run',
  ),
);
program.parse(process.argv);
const outcome = await runBench(benchOptionsFrom(program.opts()));
process.stdout.write(
  `\n${outcome.table}\n\nmachine: ${JSON.stringify(outcome.run.machine)}\nresults: ${outcome.jsonPath}\n`,
);
