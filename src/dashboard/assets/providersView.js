// The providers view.
import { actionButton, verifyAction } from './actions.js';
import { api, failure } from './api.js';
import { h, table, timeMs } from './dom.js';
import { render, show, viewSignal } from './view.js';

const STATUS_TEXT = {
  verified: 'verified',
  failed: 'failed',
  stale: 'stale: verified under an older contract',
  never: 'never verified',
};

/**
 * What the verification means for this provider's use. A primary always runs its
 * operation, verified or not (verification only gates failover to a fallback), so "never
 * verified" beside it is no warning; a fallback runs only while it is verified.
 */
function runsIt(o) {
  if (o.role === 'primary') return 'yes, as the primary: it needs no verification';
  return o.failoverAllowed
    ? 'yes, as a fallback: its verification passed'
    : 'not as a fallback until a verification passes';
}

/** A provider's pause, if one runs: no worker calls it before then. */
function pause(p) {
  if (!p.pausedUntil || Date.parse(p.pausedUntil) <= Date.now()) return 'no';
  return h(
    'span',
    { class: 'badge v-failed', 'data-testid': 'paused-until' },
    'paused until ',
    timeMs(p.pausedUntil),
  );
}

/** Calls in flight against the cap, across every worker process. */
function concurrency(p) {
  if (p.maxConcurrency === null || p.maxConcurrency === undefined) return 'no cap';
  return h('span', { 'data-testid': 'in-flight' }, `${p.inFlight ?? 0} of ${p.maxConcurrency}`);
}

/** The providers: their verification status and whether each runs its operations. */
export async function providersView() {
  show('Providers', h('p', {}, 'Loading…'));
  const signal = viewSignal();
  const load = async (announce) => {
    let data;
    try {
      data = await api('/v1/providers');
    } catch (error) {
      return show('Providers', failure(error, 'The providers'));
    }
    if (signal.aborted) return;
    const rows = (data.items ?? []).flatMap((p) =>
      (p.operations ?? []).map((o) => [
        h('strong', {}, p.name),
        p.kind ?? '-',
        o.operation,
        h('span', { class: `role r-${o.role}` }, o.role),
        h(
          'span',
          { class: `badge v-${o.status}`, 'data-status': o.status },
          STATUS_TEXT[o.status] ?? o.status,
        ),
        h('span', { 'data-testid': 'runs-it' }, runsIt(o)),
        h(
          'span',
          { class: 'mono', title: o.contractHash },
          o.contractHash ? o.contractHash.slice(0, 12) : '-',
        ),
        o.lastVerification
          ? h(
              'span',
              {},
              o.lastVerification.passed ? 'passed ' : 'failed ',
              timeMs(o.lastVerification.finishedAt),
              o.lastVerification.contractHash !== o.contractHash ? ' (older contract)' : '',
            )
          : 'never',
        actionButton('Verify', () => verifyAction(p.name, o.operation, () => load(false)), {
          'data-provider': p.name,
          'data-operation': o.operation,
        }),
      ]),
    );
    const limits = (data.items ?? []).map((p) => [h('strong', {}, p.name), concurrency(p), pause(p)]);
    const content = [
      h(
        'p',
        {},
        'A provider with maxConcurrency has at most that many calls in flight across every worker process; one that answered 429 or 503 with Retry-After is called by no worker until its pause ends, and the jobs that would go to it wait, queued, without using an attempt.',
      ),
      table(
        'Provider limits and pauses',
        ['Provider', 'Calls in flight', 'Paused'],
        limits,
        'No providers configured.',
      ),
      h(
        'p',
        {},
        'The primary (first listed) provider of an operation always runs it, verified or not: its verification is for your information only. Failover and hedging go to a fallback only while its contract verification under the current contract passed. Verifying calls the provider and needs the admin token.',
      ),
      table(
        'Providers per operation',
        [
          'Provider',
          'Kind',
          'Operation',
          'Role',
          'Verification',
          'Runs the operation',
          'Contract hash',
          'Last verification',
          'Action',
        ],
        rows,
        'No providers configured.',
      ),
    ];
    if (announce) show('Providers', content);
    else render('Providers', content);
  };
  await load(true);
}
