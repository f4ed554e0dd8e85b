// The onejob dashboard: a hash-routed page that reads the JSON API with the token the
// user typed. The token lives in sessionStorage (gone when the tab closes), never in a URL.
import { drawTimeline } from './timeline.js';

const TOKEN = 'onejob.token';
const ADMIN = 'onejob.adminToken';
const main = document.getElementById('main');
const statusLine = document.getElementById('status');

// ---------- small DOM helpers (text only: data never becomes HTML) ----------
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, '');
    else node.setAttribute(k, String(v));
  }
  for (const c of children.flat())
    if (c !== null && c !== undefined && c !== false) node.append(c instanceof Node ? c : String(c));
  return node;
}
const badge = (state) => h('span', { class: `badge s-${state}` }, state);
const time = (iso) => (iso ? h('time', { datetime: iso, title: iso }, new Date(iso).toLocaleString()) : '-');
const json = (v) => h('pre', { class: 'mono' }, JSON.stringify(v, null, 2));
const short = (id) => (id ? `${id.slice(0, 8)}…` : '-');

function table(caption, headers, rows, empty = 'Nothing here yet.') {
  if (!rows.length) return h('p', {}, empty);
  return h(
    'table',
    {},
    h('caption', { class: 'visually-hidden' }, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((x) => h('th', { scope: 'col' }, x)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((r) =>
        h(
          'tr',
          {},
          r.map((c) => h('td', {}, c ?? '-')),
        ),
      ),
    ),
  );
}

function show(title, ...content) {
  main.replaceChildren(
    h('h2', {}, title),
    ...content.flat().filter((c) => c !== null && c !== undefined && c !== false),
  );
  document.title = `${title} · onejob`;
  main.focus({ preventScroll: true });
  statusLine.textContent = `${title} loaded`;
}

// ---------- the API ----------
class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem?.code || `http_${status}`;
  }
}

async function api(path, { method = 'GET', body, admin = false } = {}) {
  const token = admin
    ? sessionStorage.getItem(ADMIN) || sessionStorage.getItem(TOKEN)
    : sessionStorage.getItem(TOKEN);
  const headers = { accept: 'application/json', authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (res.status === 401 && !admin) {
    sessionStorage.removeItem(TOKEN);
    route();
    throw new ApiError(401, data);
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

function failure(error, what) {
  if (error.code === 'route_not_found') {
    return h('p', { class: 'note' }, `${what} is not available on this server yet.`);
  }
  if (error.code === 'admin_token_required') {
    return h('p', { class: 'note' }, `${what} needs the operator (admin) token; add it on the sign-in form.`);
  }
  return h('p', { class: 'error', role: 'alert' }, `${what}: ${error.code} — ${error.message}`);
}

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
      'The development token of `onejob serve` is in .onejob/api-key.',
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
      'Admin token (optional: dead letters, provider verification)',
      h('input', { name: 'admin', type: 'password', autocomplete: 'off', id: 'admin-input' }),
    ),
    h('p', {}, h('button', { type: 'submit' }, 'Open dashboard')),
  );
  main.replaceChildren(form);
  document.getElementById('token-input').focus();
}

// ---------- jobs ----------
const STATES = ['queued', 'running', 'succeeded', 'failed', 'unknown', 'cancelled'];

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
  show('Jobs', form, results);
  const query = new URLSearchParams({ limit: '50' });
  for (const k of ['state', 'operation', 'idempotencyKey']) if (params.get(k)) query.set(k, params.get(k));
  await loadJobs(results, query);
}

async function loadJobs(container, query) {
  try {
    const page = await api(`/v1/jobs?${query}`);
    const rows = page.items.map((j) => [
      h('a', { href: `#/jobs/${j.id}`, class: 'mono' }, j.id),
      j.operation,
      badge(j.state),
      h(
        'span',
        {},
        `${j.attempts.length}`,
        j.attempts.length ? ` (${j.attempts.map((a) => a.state).join(', ')})` : '',
      ),
      h('span', { class: 'mono' }, j.idempotencyKey),
      time(j.createdAt),
    ]);
    container.append(
      table(
        'Jobs, newest first',
        ['Job', 'Operation', 'State', 'Attempts', 'Idempotency key', 'Created'],
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

async function jobView(id) {
  show(`Job ${short(id)}`, h('p', {}, 'Loading…'));
  let job;
  try {
    job = await api(`/v1/jobs/${encodeURIComponent(id)}`);
  } catch (error) {
    return show(`Job ${short(id)}`, failure(error, 'The job'));
  }
  const [events, deliveries] = await Promise.all([
    api(`/v1/jobs/${id}/events`).then(
      (r) => r.items,
      (e) => e,
    ),
    api(`/v1/jobs/${id}/deliveries`).then(
      (r) => r.items,
      (e) => e,
    ),
  ]);
  const eventList = Array.isArray(events) ? events : [];
  const winner = job.attempts.find((a) => a.id === job.completedBy);
  const facts = h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'Job'),
    h('dd', { class: 'mono' }, job.id),
    h('dt', {}, 'State'),
    h('dd', {}, badge(job.state)),
    h('dt', {}, 'Operation'),
    h('dd', {}, job.operation),
    h('dt', {}, 'Idempotency key'),
    h('dd', { class: 'mono' }, job.idempotencyKey),
    h('dt', {}, 'Version'),
    h('dd', {}, String(job.version)),
    h('dt', {}, 'Winner'),
    h('dd', {}, winner ? `attempt ${winner.n} (${winner.provider})` : 'none yet'),
    h('dt', {}, 'Created'),
    h('dd', {}, time(job.createdAt)),
    h('dt', {}, 'Updated'),
    h('dd', {}, time(job.updatedAt)),
  );
  const attemptRows = job.attempts.map((a) => [
    String(a.n),
    a.provider,
    badge(a.id === job.completedBy ? 'winner' : a.state),
    a.origin ?? '-',
    time(a.startedAt),
    time(a.finishedAt),
    a.error ? h('span', { class: 'mono' }, a.error.code ?? JSON.stringify(a.error)) : '-',
  ]);
  const eventRows = eventList.map((e) => [
    time(e.createdAt),
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
  show(
    `Job ${short(job.id)}`,
    facts,
    h('h3', {}, 'Attempts'),
    h(
      'ul',
      { class: 'legend', 'aria-label': 'Timeline legend' },
      h('li', {}, '★ winner'),
      h('li', {}, '✕ lost the race or failed'),
      h('li', {}, '? timed out: outcome unknown (hatched)'),
      h('li', {}, '⊘ abandoned'),
    ),
    drawTimeline(job, eventList),
    table(
      'Attempts',
      ['N', 'Provider', 'State', 'Origin', 'Started', 'Finished', 'Error'],
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
  );
}

// ---------- outbox, inbox, ledger, providers ----------
async function outboxView() {
  show('Outbox', h('p', {}, 'Loading…'));
  try {
    const data = await api('/v1/dashboard/outbox');
    show(
      'Outbox',
      h(
        'p',
        {},
        'Events about your jobs, per publisher. Pending rows are the backlog; dead letters need an operator to replay them.',
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
        ['Dead since', 'Publisher', 'Event', 'Job', 'Refusals', 'Replays', 'Last error'],
        data.deadLetters.map((d) => [
          time(d.deadAt),
          d.publisher,
          d.type,
          h('a', { href: `#/jobs/${d.jobId}`, class: 'mono' }, short(d.jobId)),
          String(d.attempts),
          String(d.replays),
          h('span', { class: 'mono' }, d.lastError ?? ''),
        ]),
        'No dead letters.',
      ),
    );
  } catch (error) {
    show('Outbox', failure(error, 'The outbox summary'));
  }
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
          e.jobId ? h('a', { href: `#/jobs/${e.jobId}`, class: 'mono' }, short(e.jobId)) : '-',
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
  const form = h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Ledger account',
      onsubmit: (e) => {
        e.preventDefault();
        const d = new FormData(form);
        const q = new URLSearchParams({ account: String(d.get('account')).trim() });
        const local = String(d.get('asOf') || '');
        if (local) q.set('asOf', new Date(local).toISOString());
        location.hash = `#/ledger?${q}`;
      },
    },
    h('label', {}, 'Account', h('input', { name: 'account', required: true, value: account })),
    h(
      'label',
      {},
      'As of (your local time; empty = now)',
      h('input', { name: 'asOf', type: 'datetime-local', step: '1', value: asOf ? toLocalInput(asOf) : '' }),
    ),
    h('button', { type: 'submit' }, 'Show balance'),
  );
  if (!account)
    return show(
      'Ledger',
      form,
      h('p', {}, 'Pick an account to see its balance as it was believed at any moment.'),
    );
  show('Ledger', form, h('p', {}, 'Loading…'));
  const q = asOf ? `?asOf=${encodeURIComponent(asOf)}` : '';
  try {
    const [balance, entries] = await Promise.all([
      api(`/v1/ledger/accounts/${encodeURIComponent(account)}${q}`),
      api(`/v1/ledger/accounts/${encodeURIComponent(account)}/entries${q}`),
    ]);
    show(
      'Ledger',
      form,
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
        h('dd', {}, time(balance.asOf)),
      ),
      h('h3', {}, 'Entries (originals and reversals)'),
      table(
        'Ledger entries',
        ['Recorded', 'Effective', 'Side', 'Amount', 'Counterparty', 'Transfer', 'Reverses', 'Reason'],
        entries.items.map((e) => [
          time(e.recordedAt),
          time(e.effectiveAt),
          e.side,
          String(e.amount),
          e.counterparty,
          h('span', { class: 'mono' }, e.transferId),
          e.reverses ?? '-',
          e.reason ?? '-',
        ]),
      ),
    );
  } catch (error) {
    show('Ledger', form, failure(error, 'The ledger'));
  }
}

function toLocalInput(iso) {
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

async function providersView() {
  show('Providers', h('p', {}, 'Loading…'));
  try {
    const data = await api('/v1/providers');
    const providers = Array.isArray(data) ? data : (data.items ?? data.providers ?? []);
    const ops = [...new Set(providers.flatMap((p) => Object.keys(operationsOf(p))))].sort();
    const rows = providers.map((p) => [
      h('strong', {}, p.name),
      p.kind ?? '-',
      ...ops.map((op) => {
        const v = operationsOf(p)[op];
        if (!v) return '—';
        const status =
          typeof v === 'string'
            ? v
            : (v.status ??
              v.state ??
              (v.passed === true ? 'passed' : v.passed === false ? 'failed' : 'unverified'));
        return h('span', {}, badge(status), v.verifiedAt ? h('span', {}, ' ', time(v.verifiedAt)) : '');
      }),
    ]);
    show(
      'Providers',
      h(
        'p',
        {},
        'Automatic failover only goes to a provider whose contract verification passed for the operation.',
      ),
      table('Provider verification matrix', ['Provider', 'Kind', ...ops], rows, 'No providers configured.'),
    );
  } catch (error) {
    show('Providers', failure(error, 'The provider verification matrix'));
  }
}

function operationsOf(p) {
  if (p.operations && !Array.isArray(p.operations)) return p.operations;
  if (Array.isArray(p.operations))
    return Object.fromEntries(p.operations.map((o) => [o.operation ?? o.name, o]));
  if (Array.isArray(p.verifications)) return Object.fromEntries(p.verifications.map((o) => [o.operation, o]));
  return {};
}

// ---------- routing ----------
async function route() {
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
window.addEventListener('hashchange', route);
route();
