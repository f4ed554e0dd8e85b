// The onejob dashboard: a hash-routed page that reads the JSON API with the token the
// user typed. The token lives in sessionStorage (gone when the tab closes), never in a URL.
import {
  abandonAction,
  actionButton,
  cancelAction,
  replayAction,
  startAttemptAction,
  verifyAction,
} from './actions.js';
import { ADMIN, api, bearer, failure, onUnauthorized, TOKEN } from './api.js';
import { listAttempts } from './attemptList.js';
import { age, badge, duration, FINAL_STATES, h, json, short, table, time, timeMs } from './dom.js';
import { drawTimeline } from './timeline.js';

const main = document.getElementById('main');
const statusLine = document.getElementById('status');

function show(title, ...content) {
  render(title, content);
  main.focus({ preventScroll: true });
  statusLine.textContent = `${title} loaded`;
}

/** Replaces the view without moving focus or announcing it: for live updates and refreshes. */
function render(title, content) {
  // Flattened all the way: a view's content is a list that may hold sections (a heading
  // with its body) as lists of their own, and show() adds one more level.
  main.replaceChildren(
    h('h2', {}, title),
    ...content.flat(Number.POSITIVE_INFINITY).filter((c) => c !== null && c !== undefined && c !== false),
  );
  document.title = `${title} · onejob`;
}

// Timers and streams of the current view; a new view stops them.
let viewStop = new AbortController();
const viewSignal = () => viewStop.signal;

// ---------- sign in ----------
function signIn() {
  document.getElementById('sign-out').hidden = true;
  const form = h(
    'form',
    {
      class: 'card',
      'aria-labelledby': 'signin-title',
      onsubmit: (e) => {
        e.preventDefault();
        const data = new FormData(form);
        sessionStorage.setItem(TOKEN, String(data.get('token')).trim());
        const admin = String(data.get('admin') || '').trim();
        if (admin) sessionStorage.setItem(ADMIN, admin);
        else sessionStorage.removeItem(ADMIN);
        route();
      },
    },
    h('h2', { id: 'signin-title' }, 'Sign in'),
    h(
      'p',
      {},
      'The dashboard reads the API with your token. It stays in this tab (sessionStorage) and never goes into a URL. ',
      'The development token of ',
      h('code', {}, 'onejob serve'),
      ' is in ',
      h('code', {}, '.onejob/api-key'),
      ', its admin token in ',
      h('code', {}, '.onejob/admin-token'),
      '.',
    ),
    h(
      'label',
      {},
      'API token',
      h('input', { name: 'token', type: 'password', required: true, autocomplete: 'off', id: 'token-input' }),
    ),
    h(
      'label',
      {},
      'Admin token (optional: replaying dead letters, verifying providers)',
      h('input', { name: 'admin', type: 'password', autocomplete: 'off', id: 'admin-input' }),
    ),
    h('p', {}, h('button', { type: 'submit' }, 'Open dashboard')),
  );
  main.replaceChildren(form);
  document.getElementById('token-input').focus();
}

// ---------- jobs ----------
const STATES = ['queued', 'running', 'succeeded', 'failed', 'unknown', 'cancelled'];
const AUTO_REFRESH = 'onejob.autoRefresh';
const AUTO_REFRESH_MS = 5_000;

async function jobsView(params) {
  const form = h(
    'form',
    {
      class: 'filters',
      role: 'search',
      'aria-label': 'Filter jobs',
      onsubmit: (e) => {
        e.preventDefault();
        const q = new URLSearchParams();
        for (const [k, v] of new FormData(form)) if (String(v).trim()) q.set(k, String(v).trim());
        location.hash = `#/jobs?${q}`;
      },
    },
    h(
      'label',
      {},
      'State',
      h(
        'select',
        { name: 'state' },
        h('option', { value: '' }, 'any'),
        STATES.map((s) => h('option', { value: s, selected: params.get('state') === s }, s)),
      ),
    ),
    h(
      'label',
      {},
      'Operation',
      h('input', { name: 'operation', value: params.get('operation') ?? '', size: 14 }),
    ),
    h(
      'label',
      {},
      'Idempotency key',
      h('input', {
        name: 'idempotencyKey',
        value: params.get('idempotencyKey') ?? '',
        size: 28,
        id: 'key-search',
      }),
    ),
    h('button', { type: 'submit' }, 'Search'),
  );
  const results = h('div', { id: 'job-results' });
  const query = () => {
    const q = new URLSearchParams({ limit: '50' });
    for (const k of ['state', 'operation', 'idempotencyKey']) if (params.get(k)) q.set(k, params.get(k));
    return q;
  };
  const refreshed = h('span', { class: 'muted', 'data-testid': 'refreshed-at' });
  const signal = viewSignal();
  let timer;
  const reload = async () => {
    const fresh = h('div');
    await loadJobs(fresh, query());
    if (signal.aborted) return;
    results.replaceChildren(...fresh.childNodes);
    refreshed.textContent = `updated ${new Date().toLocaleTimeString(undefined, { hourCycle: 'h23' })}`;
  };
  const setAuto = (on) => {
    clearInterval(timer);
    if (on) sessionStorage.setItem(AUTO_REFRESH, '1');
    else sessionStorage.removeItem(AUTO_REFRESH);
    if (on) timer = setInterval(reload, AUTO_REFRESH_MS);
  };
  signal.addEventListener('abort', () => clearInterval(timer));
  const auto = h(
    'label',
    { class: 'toggle' },
    h('input', {
      type: 'checkbox',
      id: 'auto-refresh',
      checked: sessionStorage.getItem(AUTO_REFRESH) === '1',
      onchange: (e) => setAuto(e.target.checked),
    }),
    `Auto-refresh every ${AUTO_REFRESH_MS / 1000} s`,
  );
  show('Jobs', form, h('p', { class: 'toolbar' }, auto, ' ', refreshed), results);
  await loadJobs(results, query());
  if (sessionStorage.getItem(AUTO_REFRESH) === '1' && !signal.aborted) setAuto(true);
}

async function loadJobs(container, query) {
  try {
    const page = await api(`/v1/jobs?${query}`);
    // A narrow screen keeps the first three columns (the id shortened): what a phone user looks for.
    const rows = page.items.map((j) => [
      h(
        'a',
        { href: `#/jobs/${j.id}`, class: 'mono nowrap', 'aria-label': `job ${j.id}` },
        h('span', { class: 'id-full' }, j.id),
        h('span', { class: 'id-short', 'aria-hidden': 'true' }, short(j.id)),
      ),
      badge(j.state),
      age(j.createdAt),
      j.operation,
      h(
        'span',
        {},
        `${j.attempts.length}`,
        j.attempts.length ? ` (${j.attempts.map((a) => a.state).join(', ')})` : '',
      ),
      h('span', { class: 'mono' }, j.idempotencyKey),
      time(j.createdAt),
    ]);
    const wide = (label) => ({ label, class: 'wide' });
    container.append(
      table(
        'Jobs, newest first',
        [
          'Job',
          'State',
          'Age',
          wide('Operation'),
          wide('Attempts'),
          wide('Idempotency key'),
          wide('Created'),
        ],
        rows,
        'No jobs match.',
      ),
    );
    if (page.nextCursor) {
      const more = h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () => {
            more.remove();
            query.set('cursor', page.nextCursor);
            loadJobs(container, query);
          },
        },
        'Load more',
      );
      container.append(h('p', {}, more));
    }
  } catch (error) {
    container.append(failure(error, 'Jobs'));
  }
}

async function loadJob(id) {
  const job = await api(`/v1/jobs/${encodeURIComponent(id)}`);
  const [events, deliveries] = await Promise.all([
    api(`/v1/jobs/${encodeURIComponent(id)}/events`).then(
      (r) => r.items,
      (e) => e,
    ),
    api(`/v1/jobs/${encodeURIComponent(id)}/deliveries`).then(
      (r) => r.items,
      (e) => e,
    ),
  ]);
  return { job, events, deliveries };
}

async function jobView(id) {
  show(`Job ${short(id)}`, h('p', {}, 'Loading…'));
  const signal = viewSignal();
  let data;
  try {
    data = await loadJob(id);
  } catch (error) {
    return show(`Job ${short(id)}`, failure(error, 'The job'));
  }
  if (signal.aborted) return;
  let current = data;
  let shown = jobFingerprint(data.job);
  const refresh = async () => {
    const next = await loadJob(id);
    if (signal.aborted) return;
    current = next;
    shown = jobFingerprint(next.job);
    renderJob(next, refresh, !FINAL_STATES.includes(next.job.state));
  };
  renderJob(data, refresh, !FINAL_STATES.includes(data.job.state), true);
  if (FINAL_STATES.includes(data.job.state)) return;
  // Between changes, a running attempt's bar (and an unknown span) still grows to "now".
  const grow = setInterval(() => {
    const drawn = main.querySelector('[data-testid="attempt-timeline"]');
    if (FINAL_STATES.includes(current.job.state) || !drawn) return;
    drawn.replaceWith(drawTimeline(current.job, Array.isArray(current.events) ? current.events : []));
  }, 1_000);
  signal.addEventListener('abort', () => clearInterval(grow));
  followJob(id, signal, async (job) => {
    if (jobFingerprint(job) !== shown) await refresh();
  });
}

// What the page draws: a change in any of these redraws it.
const jobFingerprint = (job) =>
  JSON.stringify([
    job.state,
    job.version,
    job.updatedAt,
    job.completedBy,
    job.attempts.map((a) => [a.n, a.state, a.finishedAt]),
  ]);

/**
 * Follows the job's server-sent events until it succeeds, fails or is cancelled, or the
 * view changes. Read with fetch: EventSource cannot send the bearer token.
 */
async function followJob(id, signal, onJob) {
  while (!signal.aborted) {
    let final = false;
    try {
      const res = await fetch(`/v1/dashboard/jobs/${encodeURIComponent(id)}/stream`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${bearer(false)}` },
        signal,
      });
      // A refusal (the job is gone, the token no longer valid) will not change by retrying.
      if (res.status >= 400 && res.status < 500) {
        statusLine.textContent = `Live updates stopped: the server answered ${res.status}`;
        return;
      }
      if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (block.startsWith('event: job') && data) {
            const job = JSON.parse(data);
            final = FINAL_STATES.includes(job.state);
            await onJob(job);
          }
          end = buffer.indexOf('\n\n');
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      statusLine.textContent = `Live updates paused: ${error.message}`;
    }
    if (final) return;
    // The stream ends after a few minutes, or the server restarted: reconnect shortly.
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

function renderJob({ job, events, deliveries }, refresh, live, announce = false) {
  const eventList = Array.isArray(events) ? events : [];
  const winner = job.attempts.find((a) => a.id === job.completedBy);
  const settled = FINAL_STATES.includes(job.state);
  const facts = h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'Job'),
    h('dd', { class: 'mono nowrap' }, job.id),
    h('dt', {}, 'State'),
    h('dd', { 'data-testid': 'job-state' }, badge(job.state)),
    h('dt', {}, 'Operation'),
    h('dd', {}, job.operation),
    h('dt', {}, 'Idempotency key'),
    h('dd', { class: 'mono' }, job.idempotencyKey),
    h('dt', {}, 'Version'),
    h('dd', {}, String(job.version)),
    h('dt', {}, 'Winner'),
    h('dd', {}, winner ? `attempt ${winner.n} (${winner.provider})` : 'none yet'),
    h('dt', {}, 'Created'),
    h('dd', {}, timeMs(job.createdAt)),
    h('dt', {}, 'Updated'),
    h('dd', {}, timeMs(job.updatedAt)),
  );
  const actions = settled
    ? null
    : h(
        'div',
        { class: 'actions', role: 'group', 'aria-label': 'Job actions' },
        actionButton('Start an attempt', () => startAttemptAction(job, refresh), { id: 'start-attempt' }),
        actionButton('Cancel job', () => cancelAction(job, refresh), {
          id: 'cancel-job',
          class: 'action danger',
        }),
      );
  const attemptRows = job.attempts.map((a) => [
    String(a.n),
    a.provider,
    badge(a.id === job.completedBy ? 'winner' : a.state),
    a.origin ?? '-',
    timeMs(a.startedAt),
    timeMs(a.finishedAt),
    duration(a.startedAt, a.finishedAt),
    a.error ? h('span', { class: 'mono' }, a.error.code ?? JSON.stringify(a.error)) : '-',
    !settled && (a.state === 'running' || a.state === 'unknown')
      ? actionButton(`Abandon #${a.n}`, () => abandonAction(job, a, refresh), { class: 'action danger' })
      : '',
  ]);
  const eventRows = eventList.map((e) => [
    timeMs(e.createdAt),
    e.type,
    e.attemptId ? `attempt ${job.attempts.find((a) => a.id === e.attemptId)?.n ?? short(e.attemptId)}` : '-',
    h('span', { class: 'mono' }, Object.keys(e.data ?? {}).length ? JSON.stringify(e.data) : ''),
  ]);
  const deliveryRows = Array.isArray(deliveries)
    ? deliveries.map((d) => [
        time(d.createdAt),
        d.type,
        d.deliveries.length
          ? h(
              'span',
              {},
              d.deliveries.map((x, i) =>
                h(
                  'span',
                  {},
                  i ? ', ' : '',
                  `${x.publisher}: `,
                  badge(x.state),
                  x.attempts ? ` (${x.attempts} refused)` : '',
                  x.replays ? ` (replayed ${x.replays}×)` : '',
                ),
              ),
            )
          : 'waiting for a relay',
      ])
    : [];
  const content = [
    live
      ? h(
          'p',
          { class: 'live', 'data-testid': 'live-status' },
          'Live: this page updates itself until the job succeeds, fails or is cancelled.',
        )
      : null,
    facts,
    actions,
    h('h3', {}, 'Attempts'),
    legend(),
    // A narrow screen shows the attempts as a list of sentences instead of the drawing.
    h('div', { class: 'scroll' }, drawTimeline(job, eventList)),
    listAttempts(job, eventList),
    table(
      'Attempts',
      ['N', 'Provider', 'State', 'Origin', 'Started', 'Finished', 'Took', 'Error', 'Action'],
      attemptRows,
      'No attempts yet.',
    ),
    h('h3', {}, 'Input'),
    json(job.input),
    job.result !== null ? [h('h3', {}, 'Result'), json(job.result)] : null,
    job.error ? [h('h3', {}, 'Error'), json(job.error)] : null,
    h('h3', {}, 'Events'),
    Array.isArray(events)
      ? table('Job events, oldest first', ['When', 'Event', 'Attempt', 'Data'], eventRows)
      : failure(events, 'Job events'),
    h('h3', {}, 'Outbox deliveries'),
    Array.isArray(deliveries)
      ? table(
          'Outbox events of this job',
          ['Written', 'Event', 'Delivery per publisher'],
          deliveryRows,
          'No outbox events.',
        )
      : failure(deliveries, 'Outbox deliveries'),
  ];
  if (announce) show(`Job ${short(job.id)}`, content);
  else {
    render(`Job ${short(job.id)}`, content);
    statusLine.textContent = `Job ${short(job.id)} is ${job.state}`;
  }
}

/** The timeline's colours and marks, each with its words: colour is never the only signal. */
function legend() {
  const item = (swatch, text) =>
    h('li', {}, h('span', { class: `swatch ${swatch}`, 'aria-hidden': 'true' }), text);
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'Timeline legend' },
    item('succeeded', '★ winner'),
    item('running', 'starting or running'),
    item('unknown', '? timed out: outcome unknown (hatched)'),
    item('failed', '✕ failed'),
    item('lost_race', '✕ lost the race'),
    item('abandoned', '⊘ abandoned'),
    h('li', {}, h('span', { class: 'swatch break', 'aria-hidden': 'true' }, '≈'), 'a long wait, shortened'),
  );
}

// ---------- outbox, inbox, ledger, providers ----------
async function outboxView() {
  show('Outbox', h('p', {}, 'Loading…'));
  const signal = viewSignal();
  const load = async (announce) => {
    let data;
    try {
      data = await api('/v1/dashboard/outbox');
    } catch (error) {
      return show('Outbox', failure(error, 'The outbox summary'));
    }
    if (signal.aborted) return;
    const content = [
      h(
        'p',
        {},
        'Events about your jobs, per publisher. Pending rows are the backlog; a dead letter goes back to its publisher when an operator replays it (admin token).',
      ),
      h('h3', {}, 'Backlog'),
      table(
        'Outbox deliveries by publisher and state',
        ['Publisher', 'State', 'Events', 'Oldest'],
        data.backlog.map((b) => [b.publisher, badge(b.state), String(b.count), time(b.oldestAt)]),
        'No deliveries recorded (no relay has registered a publisher yet).',
      ),
      h('h3', {}, 'Dead letters'),
      table(
        'Dead letters',
        ['Dead since', 'Publisher', 'Event', 'Job', 'Refusals', 'Replays', 'Last error', 'Action'],
        data.deadLetters.map((d) => [
          timeMs(d.deadAt),
          d.publisher,
          d.type,
          h('a', { href: `#/jobs/${d.jobId}`, class: 'mono nowrap' }, short(d.jobId)),
          String(d.attempts),
          String(d.replays),
          h('span', { class: 'mono' }, d.lastError ?? ''),
          actionButton('Replay', () => replayAction(d, () => load(false)), {
            'data-event': d.eventId,
          }),
        ]),
        'No dead letters.',
      ),
    ];
    if (announce) show('Outbox', content);
    else render('Outbox', content);
  };
  await load(true);
}

async function inboxView() {
  show('Inbox', h('p', {}, 'Loading…'));
  try {
    const data = await api('/v1/dashboard/inbox');
    show(
      'Inbox',
      h(
        'p',
        {},
        "Webhook events by the sender's event id. However often one is redelivered, it made one job.",
      ),
      table(
        'Inbox events, newest first',
        ['Source', 'Event id', 'Job', 'Deliveries', 'Redeliveries', 'Differing bodies', 'First', 'Last'],
        data.items.map((e) => [
          e.source,
          h('span', { class: 'mono' }, e.eventId),
          e.jobId ? h('a', { href: `#/jobs/${e.jobId}`, class: 'mono nowrap' }, short(e.jobId)) : '-',
          String(e.deliveries),
          String(e.redeliveries),
          String(e.differingPayloads),
          time(e.firstReceivedAt),
          time(e.lastReceivedAt),
        ]),
        'No webhook events received.',
      ),
    );
  } catch (error) {
    show('Inbox', failure(error, 'The inbox'));
  }
}

async function ledgerView(params) {
  const account = params.get('account') ?? '';
  const asOf = params.get('asOf') ?? '';
  const hashFor = (name) => {
    const q = new URLSearchParams();
    if (name) q.set('account', name);
    if (asOf) q.set('asOf', asOf);
    return `#/ledger?${q}`;
  };
  const form = h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Ledger account',
      onsubmit: (e) => {
        e.preventDefault();
        const d = new FormData(form);
        const q = new URLSearchParams();
        const name = String(d.get('account')).trim();
        if (name) q.set('account', name);
        const local = String(d.get('asOf') || '');
        if (local) q.set('asOf', new Date(local).toISOString());
        location.hash = `#/ledger?${q}`;
      },
    },
    h('label', {}, 'Account (empty = all)', h('input', { name: 'account', value: account })),
    h(
      'label',
      {},
      'As of (your local time; empty = now)',
      h('input', { name: 'asOf', type: 'datetime-local', step: '1', value: asOf ? toLocalInput(asOf) : '' }),
    ),
    h('button', { type: 'submit' }, 'Show'),
  );
  show('Ledger', form, h('p', {}, 'Loading…'));
  const q = asOf ? `?asOf=${encodeURIComponent(asOf)}` : '';
  let accounts;
  try {
    const page = await api(`/v1/ledger/accounts${q}`);
    accounts = [
      h('h3', {}, asOf ? 'Your accounts as of then' : 'Your accounts'),
      table(
        'Accounts with their balances',
        ['Account', 'Currency', 'Balance (minor units)', 'Debits', 'Credits'],
        page.items.map((a) => [
          h(
            'a',
            { href: hashFor(a.account), 'aria-current': a.account === account ? 'true' : null },
            a.account,
          ),
          a.currency,
          h('span', { class: a.balance < 0 ? 'num negative' : 'num' }, String(a.balance)),
          String(a.debits),
          String(a.credits),
        ]),
        'No accounts yet: a transfer opens its two accounts.',
      ),
      page.nextAfter
        ? h('p', { class: 'muted' }, 'Showing the first accounts by name; pick one by name above.')
        : null,
    ];
  } catch (error) {
    accounts = [failure(error, 'The accounts list')];
  }
  if (!account) return render('Ledger', [form, accounts]);
  try {
    const [balance, entries] = await Promise.all([
      api(`/v1/ledger/accounts/${encodeURIComponent(account)}${q}`),
      api(`/v1/ledger/accounts/${encodeURIComponent(account)}/entries${q}`),
    ]);
    render('Ledger', [
      form,
      accounts,
      h('h3', {}, `Account ${balance.account}`),
      h(
        'dl',
        { class: 'facts card' },
        h('dt', {}, 'Account'),
        h('dd', {}, balance.account),
        h('dt', {}, 'Balance'),
        h('dd', {}, `${balance.balance} ${balance.currency} (minor units)`),
        h('dt', {}, 'Debits / credits'),
        h('dd', {}, `${balance.debits} / ${balance.credits}`),
        h('dt', {}, 'As of'),
        h('dd', {}, timeMs(balance.asOf)),
      ),
      h('h3', {}, 'Entries (originals and reversals)'),
      table(
        'Ledger entries',
        ['Recorded', 'Effective', 'Side', 'Amount', 'Counterparty', 'Transfer', 'Reverses', 'Reason'],
        entries.items.map((e) => [
          timeMs(e.recordedAt),
          time(e.effectiveAt),
          e.side,
          String(e.amount),
          e.counterparty,
          h('span', { class: 'mono' }, e.transferId),
          e.reverses ?? '-',
          e.reason ?? '-',
        ]),
      ),
    ]);
  } catch (error) {
    render('Ledger', [form, accounts, failure(error, 'The ledger')]);
  }
}

function toLocalInput(iso) {
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

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

async function providersView() {
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
    const content = [
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

// ---------- routing ----------
async function route() {
  viewStop.abort();
  viewStop = new AbortController();
  const signOut = document.getElementById('sign-out');
  if (!sessionStorage.getItem(TOKEN)) return signIn();
  signOut.hidden = false;
  const [path, qs] = (location.hash.slice(1) || '/jobs').split('?');
  const params = new URLSearchParams(qs ?? '');
  const parts = path.split('/').filter(Boolean);
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.section === parts[0]) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  if (parts[0] === 'jobs' && parts[1]) return jobView(decodeURIComponent(parts[1]));
  if (parts[0] === 'outbox') return outboxView();
  if (parts[0] === 'inbox') return inboxView();
  if (parts[0] === 'ledger') return ledgerView(params);
  if (parts[0] === 'providers') return providersView();
  return jobsView(params);
}

document.getElementById('sign-out').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN);
  sessionStorage.removeItem(ADMIN);
  route();
});
onUnauthorized(() => route());
window.addEventListener('hashchange', route);
route();
