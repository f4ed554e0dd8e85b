// The jobs list: filters, paging and the optional auto-refresh.
import { api, failure } from './api.js';
import { budgetSummary } from './budgetSummary.js';
import { age, badge, formatTime, h, short, table, time, waitsUntil } from './dom.js';
import { show, viewSignal } from './view.js';

const STATES = ['queued', 'running', 'succeeded', 'failed', 'unknown', 'cancelled'];
const AUTO_REFRESH = 'onejob.autoRefresh';
const AUTO_REFRESH_MS = 5_000;

/** The job list, filtered by the query in the page address, optionally refreshing itself. */
export async function jobsView(params) {
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
    h(
      'label',
      { class: 'toggle' },
      h('input', {
        type: 'checkbox',
        name: 'waiting',
        value: 'true',
        checked: params.get('waiting') === 'true',
      }),
      'Waiting for their time',
    ),
    h('button', { type: 'submit' }, 'Search'),
  );
  const results = h('div', { id: 'job-results' });
  const query = () => {
    const q = new URLSearchParams({ limit: '50' });
    for (const k of ['state', 'operation', 'idempotencyKey', 'waiting'])
      if (params.get(k)) q.set(k, params.get(k));
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
    refreshed.textContent = `updated ${formatTime(new Date().toISOString()).slice(11)}`;
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
  show('Jobs', await budgetSummary(), form, h('p', { class: 'toolbar' }, auto, ' ', refreshed), results);
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
      h('span', { class: 'nowrap' }, badge(j.state), waitsUntil(j)),
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
