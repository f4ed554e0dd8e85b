// Drives Debian's Chromium (never a downloaded browser) through the dashboard: sign in,
// find the job a double click created, and see one job with its attempts on the timeline.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OWNER_A, postJob, startTestApp, type TestApp } from '../helpers/startTestApp.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

let t: TestApp;
let context: BrowserContext | undefined;
let profile: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The dashboard test needs Debian's Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH).`,
    );
  }
  t = await startTestApp();
  profile = await mkdtemp(join(tmpdir(), 'onejob-chromium-'));
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
});

afterAll(async () => {
  await context?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  await t?.close();
});

it('a double click shows as one job with its attempts, found by its idempotency key', async () => {
  const key = `double-click-${Date.now()}`;
  const body = { operation: 'charge', input: { amount: 1999 } };
  const [first, second] = await Promise.all([postJob(t, key, body), postJob(t, key, body)]);
  const id = ((await first.json()) as { id: string }).id;
  expect(((await second.json()) as { id: string }).id).toBe(id);
  // The fallback button: a second click asks for an attempt now.
  const attempt = await t.request(`/v1/jobs/${id}/attempts`, { method: 'POST', json: {} });
  expect(attempt.status).toBe(202);

  const page = await context!.newPage();
  const consoleErrors: string[] = [];
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await page.goto(`${t.url}/`);

  // Keyboard only: the labelled token field has the focus, typing and Enter sign in.
  await page.getByLabel('API token').waitFor();
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('token-input');
  await page.keyboard.type(OWNER_A.token);
  await page.keyboard.press('Enter');

  await page.getByLabel('Idempotency key').fill(key);
  await page.getByRole('button', { name: 'Search' }).click();
  const rows = page.locator('#job-results tbody tr');
  await expect.poll(() => rows.count()).toBe(1);
  await rows.first().getByRole('link').click();

  const timeline = page.getByTestId('attempt-timeline');
  await timeline.waitFor();
  expect(await page.locator('[data-testid="attempt-timeline"] g.attempt').count()).toBe(1);
  expect(await page.locator('dl.facts').textContent()).toContain(id);
  expect(await page.locator('table').first().textContent()).toMatch(/sim-pay/);
  // The token never appears in the address bar; it lives in sessionStorage only.
  expect(page.url()).not.toContain(OWNER_A.token);
  expect(await page.evaluate(() => sessionStorage.getItem('onejob.token'))).toBe(OWNER_A.token);

  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-double-click-job.png'), fullPage: true });
  expect(consoleErrors).toEqual([]);
});
