// Builds dist/ from src/: the migrations module, the TypeScript compile, the dashboard
// assets. `npm run build` always builds. `prepare` (run by `npm install`, `npm ci` and the
// first `npx onejob` in a clone) passes --if-changed: it builds only when an input changed
// since the last build, so it never rewrites a current dist/ under a running server, and
// it says on stderr which of the two it does.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What the build reads: a change to any of them makes dist/ out of date. */
export const BUILD_INPUTS = [
  'src',
  'migrations',
  'scripts/build.mjs',
  'scripts/generateMigrations.mjs',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];
/** Written into dist/ by a successful build: the hash of the inputs it was built from. */
export const STAMP = 'dist/.build-inputs';

function files(dir, base) {
  const path = join(base, dir);
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [dir];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(dir, name), base));
}

/** SHA-256 over the inputs' paths and contents under `base`. */
export function inputsHash(base = root, inputs = BUILD_INPUTS) {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap((input) => files(input, base))) {
    hash.update(`${relative(base, join(base, file))}\0`);
    hash.update(readFileSync(join(base, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** True when dist/ was built from exactly the inputs there are now. */
export function buildIsCurrent(base = root, inputs = BUILD_INPUTS) {
  const stamp = join(base, STAMP);
  return (
    existsSync(join(base, 'dist', 'cli', 'main.js')) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === inputsHash(base, inputs)
  );
}

function build() {
  execFileSync(process.execPath, [join(root, 'scripts', 'generateMigrations.mjs')], { stdio: 'inherit' });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
    stdio: 'inherit',
    cwd: root,
  });
  cpSync(join(root, 'src', 'dashboard', 'assets'), join(root, 'dist', 'dashboard', 'assets'), {
    recursive: true,
  });
  // After the build: generating the migrations module may itself have changed src/.
  writeFileSync(join(root, STAMP), `${inputsHash()}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const say = (line) => process.stderr.write(`onejob: ${line}\n`);
  if (process.argv.includes('--if-changed') && buildIsCurrent()) {
    say('dist/ is up to date with src/; not rebuilding it (npm run build forces a build)');
  } else {
    const began = Date.now();
    say('building dist/ from src/ (TypeScript compile, usually 10 to 30 s)');
    build();
    say(`built dist/ in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  }
}
