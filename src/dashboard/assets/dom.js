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
export const time = (iso) =>
  iso ? h('time', { datetime: iso, title: iso }, new Date(iso).toLocaleString()) : '-';
// To the millisecond: two attempts of a race often start within the same second.
export const MS_FORMAT = {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
  hourCycle: 'h23',
};
export const timeMs = (iso) =>
  iso
    ? h(
        'time',
        { datetime: iso, title: iso, class: 'nowrap' },
        `${new Date(iso).toLocaleDateString()} ${new Date(iso).toLocaleTimeString(undefined, MS_FORMAT)}`,
      )
    : '-';
export const duration = (from, to) => {
  if (!from || !to) return '-';
  const d = Date.parse(to) - Date.parse(from);
  return d < 10_000 ? `${d} ms` : `${(d / 1000).toFixed(1)} s`;
};
export const FINAL_STATES = ['succeeded', 'failed', 'cancelled'];
export const json = (v) => h('pre', { class: 'mono' }, JSON.stringify(v, null, 2));
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
  return h('time', { datetime: iso, title: new Date(iso).toLocaleString(), class: 'nowrap' }, `${text} ago`);
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
