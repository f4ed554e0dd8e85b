// Calls to the JSON API with the token the user typed (kept in sessionStorage, never in a URL).
import { h } from './dom.js';

export const TOKEN = 'onejob.token';
export const ADMIN = 'onejob.adminToken';

let unauthorized = () => {};
/** What to do when the server no longer accepts the API token (the app shows the sign-in form). */
export function onUnauthorized(fn) {
  unauthorized = fn;
}

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem?.code || `http_${status}`;
    /** The RFC 9457 problem document as the server sent it. */
    this.problem = problem ?? { status };
  }
}

// Operator endpoints (provider verification, dead letters) take the admin token as their
// bearer token; everything else takes the tenant's API token.
export const bearer = (admin) =>
  admin ? sessionStorage.getItem(ADMIN) || sessionStorage.getItem(TOKEN) : sessionStorage.getItem(TOKEN);

export async function api(path, { method = 'GET', body, admin = false } = {}) {
  const headers = { accept: 'application/json', authorization: `Bearer ${bearer(admin)}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text.slice(0, 500) };
  }
  if (res.status === 401 && !admin) {
    sessionStorage.removeItem(TOKEN);
    unauthorized();
    throw new ApiError(401, data);
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

export function failure(error, what) {
  if (error.code === 'route_not_found') {
    return h('p', { class: 'note' }, `${what} is not available on this server yet.`);
  }
  if (error.code === 'admin_token_required') {
    return h('p', { class: 'note' }, `${what} needs the operator (admin) token; add it on the sign-in form.`);
  }
  return h('p', { class: 'error', role: 'alert' }, `${what}: ${error.code} — ${error.message}`);
}
