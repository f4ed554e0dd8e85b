// The page's frame: the main region every view draws into, the status line, and the
// signal that stops the view on screen when another replaces it.
import { h } from './dom.js';

const main = document.getElementById('main');
const statusLine = document.getElementById('status');

/** Replaces the view, moves focus to it and announces it. */
export function show(title, ...content) {
  render(title, content);
  main.focus({ preventScroll: true });
  statusLine.textContent = `${title} loaded`;
}

/** Replaces the view without moving focus or announcing it: for live updates and refreshes. */
export function render(title, content) {
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
export const viewSignal = () => viewStop.signal;

/** Stops the timers and streams of the view on screen, before the next one is drawn. */
export function newView() {
  viewStop.abort();
  viewStop = new AbortController();
}

export { main, statusLine };
