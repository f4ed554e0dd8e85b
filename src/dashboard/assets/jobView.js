// One job's page: loads it, redraws it when its stream reports a change, and lets the
// running attempt's bar grow between changes.
import { api, bearer, failure } from './api.js';
import { FINAL_STATES, h, short } from './dom.js';
import { renderJob } from './renderJob.js';
import { drawTimeline } from './timeline.js';
import { main, show, statusLine, viewSignal } from './view.js';

async function loadJob(id) {
  const job = await api(`/v1/jobs/${encodeURIComponent(id)}`);
  const [events, deliveries] = await Promise.all([
    api(`/v1/jobs/${encodeURIComponent(id)}/events`).then(
      (r) => r.items,
      (e) => e,
    ),
    api(`/v1/jobs/${encodeURIComponent(id)}/deliveries`).then(
      (r) => r.items,
      (e) => e,
    ),
  ]);
  return { job, events, deliveries };
}

/** One job, live until it settles: facts, actions, the attempt timeline, events and deliveries. */
export async function jobView(id) {
  show(`Job ${short(id)}`, h('p', {}, 'Loading…'));
  const signal = viewSignal();
  let data;
  try {
    data = await loadJob(id);
  } catch (error) {
    return show(`Job ${short(id)}`, failure(error, 'The job'));
  }
  if (signal.aborted) return;
  let current = data;
  let shown = jobFingerprint(data.job);
  const refresh = async () => {
    const next = await loadJob(id);
    if (signal.aborted) return;
    current = next;
    shown = jobFingerprint(next.job);
    renderJob(next, refresh, !FINAL_STATES.includes(next.job.state));
  };
  renderJob(data, refresh, !FINAL_STATES.includes(data.job.state), true);
  if (FINAL_STATES.includes(data.job.state)) return;
  // Between changes, a running attempt's bar (and an unknown span) still grows to "now".
  const grow = setInterval(() => {
    const drawn = main.querySelector('[data-testid="attempt-timeline"]');
    if (FINAL_STATES.includes(current.job.state) || !drawn) return;
    drawn.replaceWith(drawTimeline(current.job, Array.isArray(current.events) ? current.events : []));
  }, 1_000);
  signal.addEventListener('abort', () => clearInterval(grow));
  followJob(id, signal, async (job) => {
    if (jobFingerprint(job) !== shown) await refresh();
  });
}

// What the page draws: a change in any of these redraws it.
const jobFingerprint = (job) =>
  JSON.stringify([
    job.state,
    job.version,
    job.updatedAt,
    job.completedBy,
    job.attempts.map((a) => [a.n, a.state, a.finishedAt]),
  ]);

/**
 * Follows the job's server-sent events until it succeeds, fails or is cancelled, or the
 * view changes. Read with fetch: EventSource cannot send the bearer token.
 */
async function followJob(id, signal, onJob) {
  while (!signal.aborted) {
    let final = false;
    try {
      const res = await fetch(`/v1/dashboard/jobs/${encodeURIComponent(id)}/stream`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${bearer(false)}` },
        signal,
      });
      // A refusal (the job is gone, the token no longer valid) will not change by retrying.
      if (res.status >= 400 && res.status < 500) {
        statusLine.textContent = `Live updates stopped: the server answered ${res.status}`;
        return;
      }
      if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (block.startsWith('event: job') && data) {
            const job = JSON.parse(data);
            final = FINAL_STATES.includes(job.state);
            await onJob(job);
          }
          end = buffer.indexOf('\n\n');
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      statusLine.textContent = `Live updates paused: ${error.message}`;
    }
    if (final) return;
    // The stream ends after a few minutes, or the server restarted: reconnect shortly.
    await new Promise((r) => setTimeout(r, 2_000));
  }
}
