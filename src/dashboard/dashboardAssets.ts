// The dashboard's static files. They live beside this module in assets/ (copied to
// dist/dashboard/assets by the build); from dist without the copy, the source tree is
// the fallback, so a build that skipped the copy still serves a page.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: string;
  type: string;
}

/** The page's files by name; every browser module (`*.js`) in assets/ is served besides. */
const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
};
const MODULE_TYPE = 'text/javascript; charset=utf-8';

function assetsDir(): string {
  const here = fileURLToPath(new URL('./assets/', import.meta.url));
  if (existsSync(here)) return here;
  const source = fileURLToPath(new URL('../../src/dashboard/assets/', import.meta.url));
  if (existsSync(source)) return source;
  throw new Error(`dashboard assets not found in ${here}: run the build (npm run build) to copy them`);
}

/** Reads every asset once; the page is small and never changes while the process runs. */
export function loadDashboardAssets(): Map<string, Asset> {
  const dir = assetsDir();
  const assets = new Map<string, Asset>();
  const modules = readdirSync(dir).filter((name) => name.endsWith('.js'));
  for (const [name, type] of [...Object.entries(TYPES), ...modules.map((m) => [m, MODULE_TYPE] as const)])
    assets.set(name, { body: readFileSync(dir + name, 'utf8'), type });
  return assets;
}
