// Compiles migrations/*.sql into src/generated/migrations.ts, so the migrations are part of
// the built code and the server never reads SQL from disk at run time. src/generated/ is
// not checked in (the SQL files are the source): `build`, `prepare`, `typecheck`, the
// chaos and fuzz scripts and every vitest run write it first. `--check` exits 1 when the
// module on disk differs from the SQL files.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MIGRATIONS_DIR = join(root, 'migrations');
export const MODULE_PATH = join(root, 'src', 'generated', 'migrations.ts');

/** The migration files, in version order: `NNNN_name.sql`. */
export function readMigrationFiles(dir = MIGRATIONS_DIR) {
  const migrations = readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => ({
      version: Number.parseInt(file.slice(0, 4), 10),
      name: file.replace(/\.sql$/, ''),
      sql: readFileSync(join(dir, file), 'utf8'),
    }));
  migrations.forEach((m, i) => {
    const previous = migrations[i - 1];
    if (previous && previous.version === m.version) {
      throw new Error(`migrations ${previous.name} and ${m.name} share version ${m.version}`);
    }
  });
  return migrations;
}

// Inside a template literal only the backslash, the backtick and `${` need escaping.
const templateLiteral = (text) =>
  `\`${text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${')}\``;

/** The TypeScript module embedding `migrations`. */
export function renderMigrationsModule(migrations) {
  const entries = migrations
    .map(
      (m) =>
        `  {\n    version: ${m.version},\n    name: '${m.name}',\n    sql: ${templateLiteral(m.sql)},\n  },\n`,
    )
    .join('');
  return `// Generated from migrations/*.sql by scripts/generateMigrations.mjs: do not edit.
// Not checked in: \`npm run build\`, \`npm run typecheck\` and every vitest run write it.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
${entries}];
`;
}

/** Writes the module, leaving an unchanged one untouched (a watcher sees no change). */
export function writeMigrationsModule(text = renderMigrationsModule(readMigrationFiles())) {
  mkdirSync(dirname(MODULE_PATH), { recursive: true });
  let current;
  try {
    current = readFileSync(MODULE_PATH, 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== text) writeFileSync(MODULE_PATH, text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = renderMigrationsModule(readMigrationFiles());
  if (process.argv.includes('--check')) {
    if (readFileSync(MODULE_PATH, 'utf8') !== text) {
      console.error(`${MODULE_PATH} is out of date: run node scripts/generateMigrations.mjs`);
      process.exit(1);
    }
  } else {
    writeMigrationsModule(text);
  }
}
