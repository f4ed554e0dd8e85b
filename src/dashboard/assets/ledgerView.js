// The ledger view.
import { api, failure } from './api.js';
import { h, table, time, timeMs } from './dom.js';
import { render, show } from './view.js';

/** The ledger: accounts, and one account's balance and entries as of an instant. */
export async function ledgerView(params) {
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
