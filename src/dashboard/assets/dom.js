// The dashboard's DOM helpers. Text only: data never becomes HTML.

export function h(tag, attrs = {}, ...children) {
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
export const badge = (state) => h('span', { class: `badge s-${state}` }, state);
// One date format everywhere, in the browser's time zone: 2026-12-04 01:38:32, and with
// milliseconds where two attempts of a race often start within the same second. Sortable,
// the same in every locale, and 24-hour, so a list and a job page read alike.
const pad = (n, w = 2) => String(n).padStart(w, '0');
/** `iso` as `YYYY-MM-DD HH:MM:SS` local time, with `.mmm` when `ms` is true. */
export function formatTime(iso, ms = false) {
  const d = new Date(iso);
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const clock = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return `${date} ${clock}${ms ? `.${pad(d.getMilliseconds(), 3)}` : ''}`;
}
const timeElement = (iso, ms) =>
  iso ? h('time', { datetime: iso, title: iso, class: 'nowrap' }, formatTime(iso, ms)) : '-';
export const time = (iso) => timeElement(iso, false);
export const timeMs = (iso) => timeElement(iso, true);
/**
 * To put after a job's state badge: for a queued job whose runAt is still ahead, a space and
 * "waits until" with the time; otherwise nothing, so the state reads alone.
 */
export const waitsUntil = (job, now = Date.now()) =>
  job.state === 'queued' && job.runAt && Date.parse(job.runAt) > now
    ? [
        ' ',
        h(
          'span',
          { class: 'badge s-waiting', 'data-testid': 'waits-until' },
          'waits until ',
          time(job.runAt),
        ),
      ]
    : null;
export const duration = (from, to) => {
  if (!from || !to) return '-';
  const d = Date.parse(to) - Date.parse(from);
  return d < 10_000 ? `${d} ms` : `${(d / 1000).toFixed(1)} s`;
};
export const FINAL_STATES = ['succeeded', 'failed', 'cancelled'];
export const json = (v) => h('pre', { class: 'mono' }, JSON.stringify(v, null, 2));
/** Micro-units of the providers' currency (1,000,000 = 1 USD), grouped by thousands. */
export const micros = (n) => (n === null || n === undefined ? '-' : Number(n).toLocaleString('en-US'));
export const short = (id) => (id ? `${id.slice(0, 8)}…` : '-');

/** How long ago `iso` was, in one short word group ("42 s", "5 min"), with the time as a tooltip. */
export const age = (iso, now = Date.now()) => {
  if (!iso) return '-';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  const text =
    s < 60
      ? `${s} s`
      : s < 3_600
        ? `${Math.floor(s / 60)} min`
        : s < 86_400
          ? `${Math.floor(s / 3_600)} h`
          : `${Math.floor(s / 86_400)} d`;
  return h('time', { datetime: iso, title: formatTime(iso), class: 'nowrap' }, `${text} ago`);
};

/**
 * A table in a box that scrolls sideways. A header may be `{ label, class }`: its class goes
 * on the column's cells too (`wide`: hidden on a narrow screen).
 */
export function table(caption, headers, rows, empty = 'Nothing here yet.') {
  if (!rows.length) return h('p', {}, empty);
  const label = (x) => (typeof x === 'string' ? x : x.label);
  const cls = (i) => (typeof headers[i] === 'string' ? undefined : headers[i].class);
  // Wide tables scroll inside their own box, so a narrow screen keeps its layout.
  return h(
    'div',
    { class: 'scroll', role: 'region', 'aria-label': caption, tabindex: '0' },
    h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((x, i) => h('th', { scope: 'col', class: cls(i) }, label(x))),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r) =>
          h(
            'tr',
            {},
            r.map((c, i) => h('td', { class: cls(i) }, c ?? '-')),
          ),
        ),
      ),
    ),
  );
}
