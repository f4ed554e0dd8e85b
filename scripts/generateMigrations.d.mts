// Types of generateMigrations.mjs, for vitest.config.ts and the test that checks the compiled module.
export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
}
export const MIGRATIONS_DIR: string;
export const MODULE_PATH: string;
export function readMigrationFiles(dir?: string): MigrationFile[];
export function renderMigrationsModule(migrations: readonly MigrationFile[]): string;
export function writeMigrationsModule(text?: string): void;
