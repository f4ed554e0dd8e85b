// Drives Debian's Chromium (never a downloaded browser) through the dashboard's actions:
// each one asks for confirmation, calls the JSON API with the right token, shows the
// problem document when the server refuses, and leaves the state the API reports. A job
// page follows its job live. One browser for the whole file.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configWith,
  createJob,
  exclusiveOnPay,
  jobInState,
  markVerified,
  readJob,
} from '../attempts/attemptTestKit.js';
import { ARTIFACTS, type DashboardBrowser, launchDashboardBrowser } from '../helpers/dashboardBrowser.js';
import { markDead } from '../helpers/deadLetters.js';
import { type FakePaymentServer, Gates, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { ADMIN_TOKEN, OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
let fake: FakePaymentServer;
let browser: DashboardBrowser | undefined;
/** Holds the primary provider's answer to a `hold` charge until the test opens it. */
const held = new Gates();

beforeAll(async () => {
  browser = await launchDashboardBrowser();
  fake = await startFakePaymentServer({
    script: (req) => {
      const input = (req.body as { input?: { hold?: string } }).input;
      // The backup provider always answers at once.
      return input?.hold && !req.path.startsWith('/backup')
        ? { status: 200, body: { chargeId: 'ch_held' }, gate: held.for(input.hold) }
        : {};
    },
  });
  const retry = { baseDelayMs: 600_000, maxDelayMs: 600_000 };
  t = await startTestApp({
    config: configWith(
      {
        pay: { kind: 'http', url: fake.chargeUrl },
        'pay-backup': { kind: 'http', url: `${fake.url}/backup` },
      },
      {
        // A held answer times out quickly: the outcome is unknown, and only an operator resolves it.
        charge: {
          kind: 'http',
          providers: ['pay', 'pay-backup'],
          effect: 'exclusive',
          attemptTimeoutMs: 1_000,
          maxAttempts: 3,
          retry,
          contract: { fixtures: [{ input: { amount: 1 } }] },
        },
        // A held answer stays running until the test opens its gate.
        payout: exclusiveOnPay({ attemptTimeoutMs: 60_000, maxAttempts: 1, retry }),
      },
      { leaseMs: 60_000, pollMs: 20, graceMs: 60_000 },
    ),
  });
  t.onejob.attempts.startWorker();
});

afterAll(async () => {
  held.openAll();
  await browser?.close();
  await t?.close();
  await fake?.close();
});

/** A signed-in page at `hash`; page errors and failed requests are collected for the test to check. */
async function openDashboard(hash: string, { admin = false } = {}) {
  const { page, errors } = await browser!.newPage();
  page.on('response', (r) => {
    if (r.status() === 401) errors.push(`401 from ${r.url()}`);
  });
  await page.goto(`${t.url}/`);
  await page.getByLabel('API token').fill(OWNER_A.token);
  if (admin) await page.getByLabel(/Admin token/).fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Open dashboard' }).click();
  await page.locator('#job-results').waitFor();
  await page.evaluate((h) => {
    location.hash = h;
  }, hash);
  return { page, errors };
}

const dialog = (page: Page) => page.locator('dialog[open]');
const jobState = (page: Page) => page.getByTestId('job-state').textContent();

describe('dashboard actions', () => {
  it('an unknown attempt is abandoned from its job page with a reason, after a refused fallback shows its problem document', async () => {
    const job = await createJob(t, 'unknown-1', 'charge', { amount: 500, hold: 'unknown-1' });
    await jobInState(t, job.id, 'unknown');
    const { page, errors } = await openDashboard(`#/jobs/${job.id}`);
    expect(await jobState(page)).toBe('unknown');

    // The fallback button while the outcome is unknown: the server refuses, the dialog says why.
    await page.getByRole('button', { name: 'Start an attempt' }).click();
    await dialog(page).getByRole('button', { name: 'Start attempt' }).click();
    const problem = dialog(page).getByTestId('problem');
    await problem.waitFor();
    expect(await problem.textContent()).toContain('attempt_outcome_unknown');
    expect(await problem.locator('pre').textContent()).toContain('"status": 409');
    await dialog(page).getByRole('button', { name: 'Keep as is' }).click();
    expect(await readJob(t, job.id).then((j) => j.attempts.length)).toBe(1);

    await page.getByRole('button', { name: 'Abandon #1' }).click();
    await dialog(page)
      .getByLabel(/Reason/)
      .fill('the provider says the charge never settled');
    await dialog(page).getByRole('button', { name: 'Abandon attempt 1' }).click();
    await expect
      .poll(() => page.locator('g.attempt[data-attempt="1"]').getAttribute('data-state'))
      .toBe('abandoned');
    const after = await readJob(t, job.id);
    expect(after.attempts[0]?.state).toBe('abandoned');
    const { rows } = await t.onejob.pool.query(
      `SELECT data FROM onejob.job_events WHERE job_id = $1 AND type = 'abandoned'`,
      [job.id],
    );
    expect(rows[0].data).toMatchObject({ reason: 'the provider says the charge never settled' });
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-abandon.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the fallback button starts an attempt on the provider chosen among those the failover gate allows', async () => {
    const job = await createJob(t, 'fallback-1', 'charge', { amount: 700, hold: 'fallback-1' });
    await jobInState(t, job.id, 'unknown');
    await t.onejob.attempts.abandon(OWNER_A.owner, job.id, 1, 'timed out');
    const { page, errors } = await openDashboard(`#/jobs/${job.id}`);
    await page.getByRole('button', { name: 'Start an attempt' }).click();
    // pay-backup has no passing verification: offered, but disabled.
    const backup = dialog(page).locator('option[value="pay-backup"]');
    const offeredOnly = () => backup.evaluate((o) => (o as HTMLOptionElement).disabled);
    expect(await offeredOnly()).toBe(true);
    await dialog(page).getByRole('button', { name: 'Keep as is' }).click();

    await markVerified(t, 'pay-backup', 'charge');
    await page.getByRole('button', { name: 'Start an attempt' }).click();
    expect(await offeredOnly()).toBe(false);
    await dialog(page).getByLabel('Provider').selectOption('pay-backup');
    await dialog(page).getByRole('button', { name: 'Start attempt' }).click();
    // The worker runs it on the backup, which answers at once: the page follows it to the end.
    await expect.poll(() => jobState(page), { timeout: 20_000 }).toBe('succeeded');
    const done = await readJob(t, job.id);
    expect(done.attempts.map((a) => [a.n, a.provider, a.state])).toEqual([
      [1, 'pay', 'abandoned'],
      [2, 'pay-backup', 'succeeded'],
    ]);
    expect(fake.calls('/backup')).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('cancelling a running job from its page fences its attempt out', async () => {
    const job = await createJob(t, 'cancel-1', 'payout', { amount: 900, hold: 'cancel-1' });
    await jobInState(t, job.id, 'running');
    const { page, errors } = await openDashboard(`#/jobs/${job.id}`);
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await dialog(page).getByRole('button', { name: 'Cancel job' }).click();
    await expect.poll(() => jobState(page)).toBe('cancelled');
    expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
    const after = await readJob(t, job.id);
    expect(after.state).toBe('cancelled');
    expect(after.attempts[0]?.state).toBe('abandoned');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('verifying a provider needs the admin token: refused without it, and with it the status turns verified', async () => {
    const { page, errors } = await openDashboard('#/providers');
    const verify = page.locator('button[data-provider="pay-backup"][data-operation="charge"]');
    await verify.click();
    await dialog(page).getByRole('button', { name: 'Run verification' }).click();
    const problem = dialog(page).getByTestId('problem');
    await problem.waitFor();
    expect(await problem.textContent()).toContain('admin_token_required');
    await dialog(page).getByRole('button', { name: 'Keep as is' }).click();
    await page.close();

    const admin = await openDashboard('#/providers', { admin: true });
    const status = (p: Page) =>
      p
        .locator('tr', { has: p.locator('button[data-provider="pay-backup"][data-operation="charge"]') })
        .locator('[data-status]')
        .getAttribute('data-status');
    expect(['never', 'verified']).toContain(await status(admin.page));
    await admin.page.locator('button[data-provider="pay-backup"][data-operation="charge"]').click();
    await dialog(admin.page).getByRole('button', { name: 'Run verification' }).click();
    await admin.page.getByTestId('verify-summary').waitFor();
    expect(await admin.page.getByTestId('verify-summary').textContent()).toContain('verified');
    expect(await status(admin.page)).toBe('verified');
    const { rows } = await t.onejob.pool.query(
      `SELECT passed, requested_by FROM onejob.provider_verifications WHERE provider = 'pay-backup' AND requested_by = 'api'`,
    );
    expect(rows).toEqual([{ passed: true, requested_by: 'api' }]);
    await admin.page.screenshot({ path: join(ARTIFACTS, 'dashboard-providers.png'), fullPage: true });
    expect([...errors, ...admin.errors]).toEqual([]);
    await admin.page.close();
  });

  it('a dead letter of the owner is replayed from the outbox page with the admin token, back to pending', async () => {
    await t.onejob.pool.query(
      `INSERT INTO onejob.outbox_publishers (name, kind) VALUES ('audit', 'log') ON CONFLICT DO NOTHING`,
    );
    const job = await createJob(t, 'dead-1', 'payout', { amount: 5, hold: 'dead-1' });
    const eventId = (await markDead(t.onejob.pool, job.id, 'audit'))[0]!;
    const { page, errors } = await openDashboard('#/outbox', { admin: true });
    const replay = page.locator(`button[data-event="${eventId}"]`);
    await replay.click();
    await dialog(page).getByRole('button', { name: 'Replay' }).click();
    await expect.poll(() => replay.count()).toBe(0);
    const { rows: after } = await t.onejob.pool.query(
      `SELECT state, replays FROM onejob.outbox_deliveries WHERE event_id = $1 AND publisher = 'audit'`,
      [eventId],
    );
    expect(after).toEqual([{ state: 'pending', replays: 1 }]);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('live updates and layout', () => {
  it('a running job page turns succeeded without a reload when the engine settles the job', async () => {
    const job = await createJob(t, 'live-1', 'payout', { amount: 42, hold: 'live-1' });
    await jobInState(t, job.id, 'running');
    const { page, errors } = await openDashboard(`#/jobs/${job.id}`);
    await page.getByTestId('live-status').waitFor();
    expect(await jobState(page)).toBe('running');
    expect(await page.locator('g.attempt[data-attempt="1"]').getAttribute('data-state')).toBe('running');
    // A marker on the window survives only if the page is never reloaded.
    await page.evaluate(() => {
      (window as unknown as { marker: string }).marker = 'same page';
    });
    // While nothing changes, the timeline still grows: its axis runs to "now".
    const axisEnd = () => page.locator('[data-testid="attempt-timeline"] text.tick').last().textContent();
    const firstEnd = await axisEnd();
    await expect.poll(axisEnd).not.toBe(firstEnd);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-live-running.png'), fullPage: true });

    held.for('live-1').open();
    await expect.poll(() => jobState(page), { timeout: 20_000 }).toBe('succeeded');
    expect(await page.locator('g.attempt[data-attempt="1"]').getAttribute('data-state')).toBe('succeeded');
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same page');
    expect(await page.getByTestId('live-status').count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-live-succeeded.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('with auto-refresh on, the jobs list shows a new job without a reload', async () => {
    const first = await createJob(t, `refresh-first-${Date.now()}`, 'payout', { amount: 2 });
    const { page, errors } = await openDashboard('#/jobs');
    const rows = page.locator('#job-results tbody tr');
    const link = (id: string) => page.locator(`#job-results a[href="#/jobs/${id}"]`);
    // The list is loaded once the job made before opening it is in it; any row seen earlier
    // may belong to a render the router is about to replace.
    await expect.poll(() => link(first.id).count(), { timeout: 15_000 }).toBe(1);
    await page.evaluate(() => {
      (window as unknown as { marker: string }).marker = 'same page';
    });
    await page.getByLabel(/Auto-refresh/).check();
    const job = await createJob(t, `refresh-${Date.now()}`, 'payout', { amount: 3 });
    await expect.poll(() => link(job.id).count(), { timeout: 15_000 }).toBe(1);
    // Refreshed in place: the earlier job is still listed once and no row is doubled.
    expect(await link(first.id).count()).toBe(1);
    const ids = await page
      .locator('#job-results tbody tr a[href^="#/jobs/"]')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(new Set(ids).size).toBe(ids.length);
    expect(await rows.count()).toBe(ids.length);
    expect(await page.getByTestId('refreshed-at').textContent()).toMatch(/^updated /);
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same page');
    // The choice is remembered in the tab.
    expect(await page.evaluate(() => sessionStorage.getItem('onejob.autoRefresh'))).toBe('1');
    await page.getByLabel(/Auto-refresh/).uncheck();
    expect(await page.evaluate(() => sessionStorage.getItem('onejob.autoRefresh'))).toBeNull();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a long unknown wait is drawn shortened, so a one-second attempt keeps a visible bar', async () => {
    const { page } = await openDashboard('#/jobs');
    // A string, so the test runner's module transform leaves the page's import() alone.
    const axis = (await page.evaluate(`(async () => {
      const { timeAxis } = await import('/ui/timeline.js');
      // created, started, timed out after 1 s, abandoned a minute later, a second attempt.
      const a = timeAxis([0, 5, 1005, 61005, 61015, 61215], 0, 1000);
      return { breaks: a.breaks.length, bar: a.x(1005) - a.x(5), last: a.x(61215) };
    })()`)) as { breaks: number; bar: number; last: number };
    expect(axis.breaks).toBe(1);
    expect(axis.bar).toBeGreaterThan(200);
    expect(axis.last).toBe(1_000);
    await page.close();
  });

  it('at 390 px wide the navigation fits, wide tables scroll inside their box, and job ids stay on one line', async () => {
    await createJob(t, 'narrow-1', 'payout', { amount: 1 });
    await t.request('/v1/ledger/transfers', {
      method: 'POST',
      json: { id: 'narrow-t1', debitAccount: 'cash', creditAccount: 'revenue', amount: 250, currency: 'EUR' },
    });
    const { page, errors } = await openDashboard('#/jobs');
    await page.setViewportSize({ width: 390, height: 844 });
    // Measured in one look at a page that lists a job id: the router may render the list
    // again (a placeholder, then the rows) between a wait for a row and a separate read.
    const measured = await page.waitForFunction(() => {
      const id = document.querySelector('#job-results tbody a.mono');
      if (!id) return null;
      return {
        pageWidth: document.documentElement.scrollWidth,
        navRight: Math.max(
          ...Array.from(document.querySelectorAll('nav a')).map((a) => a.getBoundingClientRect().right),
        ),
        idHeight: id.getBoundingClientRect().height,
        lineHeight: Number.parseFloat(getComputedStyle(id).lineHeight),
      };
    });
    const layout = (await measured.jsonValue())!;
    expect(layout.pageWidth).toBeLessThanOrEqual(390);
    expect(layout.navRight).toBeLessThanOrEqual(390);
    expect(layout.idHeight).toBeLessThan(layout.lineHeight * 1.5);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-390px-jobs.png'), fullPage: true });

    // A job page: facts, timeline, tables and JSON all stay inside the screen's width.
    const firstJob = await page.locator('#job-results tbody a.mono').first().getAttribute('href');
    await page.evaluate((h) => {
      location.hash = h;
    }, firstJob!);
    await page.getByTestId('attempt-list').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // A wide table keeps the page's width: it scrolls inside its own box.
    const attempts = page.getByRole('region', { name: 'Attempts' });
    expect(await attempts.evaluate((box) => box.scrollWidth > box.clientWidth)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-390px-job.png'), fullPage: true });

    // The ledger lists the owner's accounts with their balances, without typing a name.
    await page.evaluate(() => {
      location.hash = '#/ledger';
    });
    const accounts = page.getByRole('region', { name: 'Accounts with their balances' });
    await accounts.waitFor();
    expect(await accounts.locator('tbody tr').allTextContents()).toEqual([
      expect.stringMatching(/^cashEUR-250/),
      expect.stringMatching(/^revenueEUR250/),
    ]);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-390px-ledger.png'), fullPage: true });
    // The browser's own /favicon.ico request is answered, not refused with 401.
    expect((await fetch(`${t.url}/favicon.ico`)).status).toBe(200);
    expect(errors).toEqual([]);
    await page.close();
  });
});
