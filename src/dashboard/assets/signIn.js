// Signing in: the tokens go to sessionStorage (gone when the tab closes), never into a URL.
import { ADMIN, TOKEN } from './api.js';
import { h } from './dom.js';
import { main } from './view.js';

/** The sign-in form; `onSignedIn` runs once the tokens are stored. */
export function signIn(onSignedIn) {
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
        onSignedIn();
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
