// The onejob dashboard: a hash-routed page that reads the JSON API with the token the
// user typed. The token lives in sessionStorage (gone when the tab closes), never in a URL.
import { ADMIN, onUnauthorized, TOKEN } from './api.js';
import { inboxView } from './inboxView.js';
import { jobsView } from './jobsView.js';
import { jobView } from './jobView.js';
import { ledgerView } from './ledgerView.js';
import { outboxView } from './outboxView.js';
import { providersView } from './providersView.js';
import { signIn } from './signIn.js';
import { newView } from './view.js';

// ---------- routing ----------
async function route() {
  newView();
  const signOut = document.getElementById('sign-out');
  if (!sessionStorage.getItem(TOKEN)) return signIn(route);
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
