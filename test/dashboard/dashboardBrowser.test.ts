// Drives Debian's Chromium (never a downloaded browser) through the dashboard: sign in,
// find the job a double click created, and see one job with its attempts on the timeline.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ARTIFACTS,
  type DashboardBrowser,
  launchDashboardBrowser,
  signIn,
} from '../helpers/dashboardBrowser.js';
import {
  ADMIN_TOKEN,
  OWNER_A,
  OWNER_B,
  postJob,
  startTestApp,
  type TestApp,
} from '../helpers/startTestApp.js';

let t: TestApp;
let browser: DashboardBrowser | undefined;

beforeAll(async () => {
  browser = await launchDashboardBrowser();
  t = await startTestApp();
});

afterAll(async () => {
  await browser?.close();
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

  const { page, errors } = await browser!.newPage();
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

  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-double-click-job.png'), fullPage: true });
  expect(errors).toEqual([]);
});

it("the job page shows each attempt's cost and the job's total, and every date in one format", async () => {
  const created = (await (
    await postJob(t, `costs-${Date.now()}`, { operation: 'summarize', input: { text: 'hello' } })
  ).json()) as { id: string };
  await t.onejob.pool.query(
    `INSERT INTO onejob.attempts (id, job_id, owner_id, n, provider, exclusive, state, job_version, finished_at, cost_micros)
     SELECT gen_random_uuid(), j.id, j.owner_id, a.n, a.provider, false, a.state, 1, now(), a.cost
       FROM onejob.jobs j, (VALUES (1, 'sim-a', 'lost_race', 1200), (2, 'sim-b', 'failed', NULL::bigint), (3, 'sim-b', 'succeeded', 1300800)) AS a(n, provider, state, cost)
      WHERE j.id = $1`,
    [created.id],
  );
  const { page, errors } = await browser!.newPage();
  await signIn(page, t.url, OWNER_A.token);
  const listed = page.locator('#job-results tbody tr', {
    has: page.locator(`a[href="#/jobs/${created.id}"]`),
  });
  await listed.waitFor();
  // The age column says how long ago; the created column is a date.
  const listDates = (await listed.locator('time').allTextContents()).filter((d) => !d.endsWith(' ago'));
  expect(listDates).toHaveLength(1);

  // By keyboard: the case where a focus ring would show around the whole main region.
  await listed.getByRole('link').focus();
  await page.keyboard.press('Enter');
  const attemptsTable = page.getByRole('region', { name: 'Attempts' });
  await attemptsTable.waitFor();
  const costs = await attemptsTable.locator('tbody tr').evaluateAll((trs) => {
    const headers = Array.from(
      trs[0]?.closest('table')?.querySelectorAll('thead th') ?? [],
      (th) => th.textContent,
    );
    const at = headers.indexOf('Cost (micros)');
    return trs.map((tr) => tr.querySelectorAll('td')[at]?.textContent);
  });
  expect(costs).toEqual(['1,200', '-', '1,300,800']);
  expect(await page.getByTestId('job-cost').textContent()).toBe(
    '1,302,000 micros, 3 attempts (losers included)',
  );

  // One format on the list and the job page: 2026-12-04 01:38:32, with .mmm where a race needs it.
  const pageDates = await page.locator('main time').allTextContents();
  expect(pageDates.length).toBeGreaterThan(3);
  for (const d of [...listDates, ...pageDates])
    expect(d).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{3})?$/);

  // Navigation put focus on the main region, which draws no box around the page.
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  expect(await page.evaluate(() => getComputedStyle(document.getElementById('main')!).outlineStyle)).toBe(
    'none',
  );
  expect(
    await page.evaluate(() => getComputedStyle(document.querySelector('#main > h2')!).textDecorationLine),
  ).toBe('underline');
  // A keyboard user still sees where focus is: the next Tab lands on a control with its ring.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
  expect(errors).toEqual([]);
  await page.close();
});

it('jobs waiting for their time show when they run, and the filter lists only them', async () => {
  const tag = `${Date.now()}`;
  const runAt = '2040-01-02T03:04:05.000Z';
  const waiting = (await (
    await postJob(t, `waits-${tag}`, { operation: 'charge', input: { amount: 1 }, runAt })
  ).json()) as { id: string };
  await postJob(t, `now-${tag}`, { operation: 'charge', input: { amount: 2 } });

  const { page, errors } = await browser!.newPage();
  await signIn(page, t.url, OWNER_A.token);

  // In the list: the waiting job carries "waits until" and its time; the other job none.
  const rows = page.locator('#job-results tbody tr');
  await expect.poll(() => rows.filter({ hasText: `waits-${tag}` }).count()).toBe(1);
  const waitingRow = rows.filter({ hasText: `waits-${tag}` });
  expect(await waitingRow.getByTestId('waits-until').textContent()).toMatch(/^waits until /);
  expect(await waitingRow.locator('[data-testid="waits-until"] time').getAttribute('datetime')).toBe(runAt);
  expect(
    await rows
      .filter({ hasText: `now-${tag}` })
      .getByTestId('waits-until')
      .count(),
  ).toBe(0);

  // The filter asks the server for the waiting jobs only.
  await page.getByLabel('Waiting for their time').check();
  await page.getByRole('button', { name: 'Search' }).click();
  await expect.poll(() => page.url()).toContain('waiting=true');
  // The new page of results has arrived once its rows are the waiting ones only.
  await expect
    .poll(async () => [
      await rows.filter({ hasText: `waits-${tag}` }).count(),
      await rows.filter({ hasText: `now-${tag}` }).count(),
    ])
    .toEqual([1, 0]);

  // The job's page says when it runs.
  await waitingRow.getByRole('link').click();
  await page.getByTestId('job-run-at').waitFor();
  expect(await page.locator('[data-testid="job-run-at"] time').getAttribute('datetime')).toBe(runAt);
  expect(await page.getByTestId('job-state').textContent()).toMatch(/^queued waits until /);
  expect(await page.locator('dl.facts').textContent()).toContain(waiting.id);
  expect(errors).toEqual([]);
});

it("the jobs page shows the owner's budget, spent and held beside its jobs, and nothing for an owner without one", async () => {
  const set = await t.request(`/v1/budgets/${OWNER_B.owner}/USD`, {
    method: 'PUT',
    token: ADMIN_TOKEN,
    json: { limitMicros: 2_500_000, period: 'month' },
  });
  expect(set.status).toBe(200);
  const periodStart = ((await set.json()) as { periodStart: string }).periodStart;

  const { page, errors } = await browser!.newPage();
  await signIn(page, t.url, OWNER_B.token);
  const budgets = page.getByTestId('budgets');
  await budgets.waitFor();
  const text = await budgets.textContent();
  expect(text).toContain('Budget USD (month since');
  expect(text).toContain(periodStart.slice(0, 10));
  expect(text).toContain('spent 0 USD, held 0 USD of 2.5 USD; available 2.5 USD');
  expect(errors).toEqual([]);
  await page.close();

  // Owner A has no budget: the jobs page shows none.
  const { page: other } = await browser!.newPage();
  await other.goto(`${t.url}/`);
  await other.evaluate((token) => sessionStorage.setItem('onejob.token', token), OWNER_A.token);
  await other.reload();
  await other.locator('#job-results').waitFor();
  expect(await other.getByTestId('budgets').textContent()).toBe('');
  await other.close();
});
