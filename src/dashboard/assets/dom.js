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

export function table(caption, headers, rows, empty = 'Nothing here yet.') {
  if (!rows.length) return h('p', {}, empty);
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
    ),
  );
}
