// Drives Debian's Chromium (never a downloaded browser) to the page of a settled job opened
// straight by its URL, as a link or a bookmark does: the page shows the job's Result or
// Error as text, whatever way the job settled. Screenshots go to test-artifacts/.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configWith,
  createJob,
  exclusiveOnPay,
  type JobJson,
  jobInState,
  markVerified,
  readJob,
  until,
} from '../attempts/attemptTestKit.js';
import { ARTIFACTS, type DashboardBrowser, launchDashboardBrowser } from '../helpers/dashboardBrowser.js';
import { type FakePaymentServer, Gates, startFakePaymentServer } from '../helpers/fakePaymentServer.js';
import { OWNER_A, startTestApp, type TestApp } from '../helpers/startTestApp.js';

let t: TestApp;
let fake: FakePaymentServer;
let browser: DashboardBrowser | undefined;
const held = new Gates();

beforeAll(async () => {
  browser = await launchDashboardBrowser();
  fake = await startFakePaymentServer({
    script: (req) => {
      const input = (req.body as { input?: { hold?: string; decline?: boolean } }).input ?? {};
      const from = req.path.slice(1);
      if (input.decline) return { status: 402, body: { error: 'card_declined' } };
      if (input.hold && from !== 'backup')
        return { status: 200, body: { chargeId: 'ch_late', from }, gate: held.for(input.hold) };
      return { status: 200, body: { chargeId: `ch_${req.index + 1}`, from } };
    },
  });
  const retry = { baseDelayMs: 600_000, maxDelayMs: 600_000 };
  t = await startTestApp({
    config: configWith(
      {
        pay: { kind: 'http', url: `${fake.url}/pay` },
        backup: { kind: 'http', url: `${fake.url}/backup`, maxConcurrency: 2 },
      },
      {
        payout: exclusiveOnPay({ attemptTimeoutMs: 60_000, maxAttempts: 1, retry }),
        // A held answer times out at once: the outcome is unknown until an operator abandons it.
        stall: exclusiveOnPay({ attemptTimeoutMs: 500, maxAttempts: 1, retry }),
        // The fallback button may run beside a pure job's first attempt: the slower one loses the race.
        render: {
          kind: 'http',
          providers: ['pay', 'backup'],
          effect: 'pure',
          attemptTimeoutMs: 60_000,
          abortLosers: false,
          maxAttempts: 3,
          retry,
        },
      },
      { leaseMs: 60_000, pollMs: 20, graceMs: 60_000 },
    ),
  });
  await markVerified(t, 'backup', 'render');
  t.onejob.attempts.startWorker();
  // Signed in before any page script runs, so a job URL is the first page the tab loads.
  await browser.context.addInitScript(
    (token) => sessionStorage.setItem('onejob.token', token),
    OWNER_A.token,
  );
});

afterAll(async () => {
  held.openAll();
  await browser?.close();
  await t?.close();
  await fake?.close();
});

/** A new tab whose first load is the job's own URL. */
async function openJobByUrl(id: string) {
  const { page, errors } = await browser!.newPage();
  await page.goto(`${t.url}/#/jobs/${id}`);
  await page.getByTestId('attempt-timeline').waitFor();
  return { page, errors };
}

/** The text of the `<pre>` right after the heading named `title`, or null without that heading. */
const section = (page: Page, title: string) =>
  page.evaluate((name) => {
    const heading = Array.from(document.querySelectorAll('#main h3')).find((e) => e.textContent === name);
    const next = heading?.nextElementSibling;
    return heading ? (next?.tagName === 'PRE' ? next.textContent : `not a pre: ${next?.outerHTML}`) : null;
  }, title);

async function expectSettledPage(page: Page, job: JobJson, shot: string) {
  expect(await page.getByTestId('job-state').textContent()).toBe(job.state);
  const text = (await page.locator('#main').textContent()) ?? '';
  expect(text).not.toContain('[object ');
  expect(await page.getByTestId('live-status').count()).toBe(0);
  await page.screenshot({ path: join(ARTIFACTS, shot), fullPage: true });
}

describe('a settled job opened by its URL', () => {
  it('a succeeded job shows its Result', async () => {
    const created = await createJob(t, 'settled-ok', 'payout', { amount: 1999 });
    const job = await jobInState(t, created.id, 'succeeded');
    const { page, errors } = await openJobByUrl(job.id);
    await expectSettledPage(page, job, 'dashboard-job-succeeded.png');
    expect(JSON.parse((await section(page, 'Result'))!)).toEqual(job.result);
    expect(await section(page, 'Error')).toBeNull();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a failed job shows its Error', async () => {
    const created = await createJob(t, 'settled-declined', 'payout', { amount: 5, decline: true });
    const job = (await jobInState(t, created.id, 'failed')) as JobJson & { error: unknown };
    const { page, errors } = await openJobByUrl(job.id);
    await expectSettledPage(page, job, 'dashboard-job-failed.png');
    expect(job.error).not.toBeNull();
    expect(JSON.parse((await section(page, 'Error'))!)).toEqual(job.error);
    expect(await section(page, 'Error')).toContain('402');
    expect(await section(page, 'Result')).toBeNull();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a job whose first attempt lost the race shows the winner’s Result and the loser as lost_race', async () => {
    const created = await createJob(t, 'settled-race', 'render', { amount: 1, hold: 'settled-race' });
    await fake.waitForRequests(1, (r) => (r.body as { jobId?: string })?.jobId === created.id);
    const fallback = await t.request(`/v1/jobs/${created.id}/attempts`, {
      method: 'POST',
      json: { provider: 'backup' },
    });
    expect(fallback.status).toBe(202);
    await jobInState(t, created.id, 'succeeded');
    held.for('settled-race').open();
    const job = await until('the first attempt to lose the race', async () => {
      const j = await readJob(t, created.id);
      return j.attempts.some((a) => a.state === 'lost_race') ? j : undefined;
    });
    const { page, errors } = await openJobByUrl(job.id);
    await expectSettledPage(page, job, 'dashboard-job-lost-race.png');
    expect(await page.locator('g.attempt[data-attempt="1"]').getAttribute('data-state')).toBe('lost_race');
    expect(JSON.parse((await section(page, 'Result'))!)).toEqual({
      chargeId: expect.any(String),
      from: 'backup',
    });
    expect(await page.getByRole('region', { name: 'Attempts' }).textContent()).toContain('lost_race');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a job whose only attempt was abandoned shows the abandonment as its Error', async () => {
    const created = await createJob(t, 'settled-abandoned', 'stall', {
      amount: 3,
      hold: 'settled-abandoned',
    });
    await jobInState(t, created.id, 'unknown');
    const abandon = await t.request(`/v1/jobs/${created.id}/attempts/1/abandon`, {
      method: 'POST',
      json: { reason: 'the provider has no record of the charge' },
    });
    expect(abandon.status).toBe(200);
    const job = (await readJob(t, created.id)) as JobJson & { error: unknown };
    expect(job.attempts[0]?.state).toBe('abandoned');
    expect(job.state).toBe('failed');
    const { page, errors } = await openJobByUrl(job.id);
    await expectSettledPage(page, job, 'dashboard-job-abandoned.png');
    expect(await page.locator('g.attempt[data-attempt="1"]').getAttribute('data-state')).toBe('abandoned');
    expect(await section(page, 'Error')).toContain('the provider has no record of the charge');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('at 390 px, the width of a phone', () => {
  it('the jobs list shows each job’s shortened id, state and age inside the screen', async () => {
    const created = await createJob(t, 'narrow-list', 'payout', { amount: 7 });
    await jobInState(t, created.id, 'succeeded');
    const { page, errors } = await browser!.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/#/jobs`);
    const row = page.locator('#job-results tbody tr', {
      has: page.locator(`a[href="#/jobs/${created.id}"]`),
    });
    await row.waitFor();
    const cells = await row.locator('td').evaluateAll((tds) =>
      tds
        .filter((td) => getComputedStyle(td).display !== 'none')
        .map((td) => {
          const box = td.getBoundingClientRect();
          return {
            // biome-ignore lint/performance/useDomNodeTextContent: innerText leaves out what CSS hides (the full id)
            text: (td as HTMLElement).innerText.trim(),
            right: box.right,
            fontPx: Number.parseFloat(getComputedStyle(td).fontSize),
          };
        }),
    );
    expect(cells.map((c) => c.text)).toEqual([
      `${created.id.slice(0, 8)}…`,
      'succeeded',
      expect.stringMatching(/^\d+ (s|min) ago$/),
    ]);
    for (const c of cells) {
      expect(c.right).toBeLessThanOrEqual(390);
      expect(c.fontPx).toBeGreaterThanOrEqual(12);
    }
    // The link still names the whole id to a screen reader.
    expect(await row.getByRole('link').getAttribute('aria-label')).toBe(`job ${created.id}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-390px-jobs-list.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a job page lists its attempts in words at a legible size instead of the shrunken drawing', async () => {
    const { rows } = await t.onejob.pool.query<{ id: string }>(
      `SELECT id FROM onejob.jobs WHERE idempotency_key = 'settled-race'`,
    );
    const id = rows[0]!.id;
    const { page, errors } = await browser!.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/#/jobs/${id}`);
    const list = page.getByTestId('attempt-list');
    await list.waitFor();
    expect(await page.getByTestId('attempt-timeline').isVisible()).toBe(false);
    const items = list.locator('li');
    expect(await items.count()).toBe(2);
    expect(await items.nth(0).textContent()).toMatch(
      /^#1 pay lost_race[\s\S]*finished after the winner: result discarded/,
    );
    expect(await items.nth(1).textContent()).toMatch(
      /^#2 backup winner \(manual\)[\s\S]*won: its result is the job’s/,
    );
    const sizes = await list.evaluate((ol) => ({
      font: Number.parseFloat(getComputedStyle(ol).fontSize),
      right: ol.getBoundingClientRect().right,
    }));
    expect(sizes.font).toBeGreaterThanOrEqual(12);
    expect(sizes.right).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-390px-job-attempts.png'), fullPage: true });

    // Wide again, the drawing is back and the list is gone.
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await page.getByTestId('attempt-timeline').isVisible()).toBe(true);
    expect(await list.isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('the providers page', () => {
  it('says a primary runs its operation without verification, and a fallback only once verified', async () => {
    const { page } = await browser!.newPage();
    await page.goto(`${t.url}/#/providers`);
    const row = (provider: string, operation: string) =>
      page.locator('tr', {
        has: page.locator(`button[data-provider="${provider}"][data-operation="${operation}"]`),
      });
    await row('pay', 'payout').waitFor();
    expect(await row('pay', 'payout').locator('[data-status]').getAttribute('data-status')).toBe('never');
    expect(await row('pay', 'payout').getByTestId('runs-it').textContent()).toBe(
      'yes, as the primary: it needs no verification',
    );
    expect(await row('backup', 'render').getByTestId('runs-it').textContent()).toBe(
      'yes, as a fallback: its verification passed',
    );
    expect(await page.locator('thead').first().textContent()).not.toContain('Failover allowed');
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-providers-primary.png'), fullPage: true });
    await page.close();
  });

  it("shows each capped provider's calls in flight against its cap, and a paused provider until when", async () => {
    await t.onejob.pool.query(
      "INSERT INTO onejob.provider_pauses (provider, until, status) VALUES ('backup', now() + interval '1 hour', 429)",
    );
    try {
      const { page } = await browser!.newPage();
      await page.goto(`${t.url}/#/providers`);
      const limits = page.getByRole('region', { name: 'Provider limits and pauses' });
      const row = (provider: string) =>
        limits.locator('tr', { has: page.locator('strong', { hasText: provider }) });
      await row('backup').getByTestId('paused-until').waitFor();
      expect(await row('backup').getByTestId('in-flight').textContent()).toBe('0 of 2');
      expect(await row('backup').getByTestId('paused-until').textContent()).toMatch(/^paused until \S/);
      expect(await row('pay').textContent()).toContain('no cap');
      expect(await row('pay').getByTestId('paused-until').count()).toBe(0);
      await page.screenshot({ path: join(ARTIFACTS, 'dashboard-providers-limits.png'), fullPage: true });
      await page.close();
    } finally {
      await t.onejob.pool.query("DELETE FROM onejob.provider_pauses WHERE provider = 'backup'");
    }
  });
});
