// Debian's Chromium (never a downloaded browser) in a throw-away profile, for the tests that
// drive the dashboard. One browser per test file; each test opens its own tabs.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where dashboard tests write their screenshots. */
export const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

/** A tab and the uncaught errors of its page scripts, for the test to expect empty. */
export interface WatchedPage {
  page: Page;
  errors: string[];
}

export interface DashboardBrowser {
  context: BrowserContext;
  /** A new tab whose page errors are collected. */
  newPage(): Promise<WatchedPage>;
  close(): Promise<void>;
}

export async function launchDashboardBrowser(): Promise<DashboardBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The dashboard test needs Debian's Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH).`,
    );
  }
  await mkdir(ARTIFACTS, { recursive: true });
  const profile = await mkdtemp(join(tmpdir(), 'onejob-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
      viewport: { width: 1280, height: 900 },
    });
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    throw err;
  }
  return {
    context,
    async newPage() {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      return { page, errors };
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Signs in on the dashboard's start page at `baseUrl` by typing `token` and pressing Enter. */
export async function signIn(page: Page, baseUrl: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('API token').fill(token);
  await page.keyboard.press('Enter');
}
