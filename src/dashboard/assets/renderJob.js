// Draws one job's page from what loadJob() read.
import { abandonAction, actionButton, cancelAction, startAttemptAction } from './actions.js';
import { failure } from './api.js';
import { listAttempts } from './attemptList.js';
import {
  badge,
  duration,
  FINAL_STATES,
  h,
  json,
  micros,
  short,
  table,
  time,
  timeMs,
  waitsUntil,
} from './dom.js';
import { drawTimeline } from './timeline.js';
import { render, show, statusLine } from './view.js';

/** What the job's attempts cost together, losers included; null while none has a cost. */
function totalCost(job) {
  const costs = job.attempts.map((a) => a.costMicros).filter((c) => typeof c === 'number');
  return costs.length ? costs.reduce((sum, c) => sum + c, 0) : null;
}

/** The job's facts: id, state, operation, key, version, winner, cost and times. */
function jobFacts(job) {
  const winner = job.attempts.find((a) => a.id === job.completedBy);
  const cost = totalCost(job);
  return h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'Job'),
    h('dd', { class: 'mono nowrap' }, job.id),
    h('dt', {}, 'State'),
    h('dd', { 'data-testid': 'job-state' }, badge(job.state), waitsUntil(job)),
    h('dt', {}, 'Operation'),
    h('dd', {}, job.operation),
    h('dt', {}, 'Idempotency key'),
    h('dd', { class: 'mono' }, job.idempotencyKey),
    h('dt', {}, 'Version'),
    h('dd', {}, String(job.version)),
    h('dt', {}, 'Winner'),
    h('dd', {}, winner ? `attempt ${winner.n} (${winner.provider})` : 'none yet'),
    h('dt', {}, 'Cost'),
    h(
      'dd',
      { 'data-testid': 'job-cost' },
      cost === null
        ? 'none recorded yet'
        : `${micros(cost)} micros, ${job.attempts.length} attempt${job.attempts.length === 1 ? '' : 's'} (losers included)`,
    ),
    h('dt', {}, 'Created'),
    h('dd', {}, timeMs(job.createdAt)),
    job.runAt && [h('dt', {}, 'Run at'), h('dd', { 'data-testid': 'job-run-at' }, timeMs(job.runAt))],
    h('dt', {}, 'Updated'),
    h('dd', {}, timeMs(job.updatedAt)),
  );
}

/** Starting an attempt and cancelling, while the job is not settled. */
function jobActions(job, settled, refresh) {
  return settled
    ? null
    : h(
        'div',
        { class: 'actions', role: 'group', 'aria-label': 'Job actions' },
        actionButton('Start an attempt', () => startAttemptAction(job, refresh), { id: 'start-attempt' }),
        actionButton('Cancel job', () => cancelAction(job, refresh), {
          id: 'cancel-job',
          class: 'action danger',
        }),
      );
}

/** One table row per attempt, with an abandon button on a running or unknown one. */
function attemptRows(job, settled, refresh) {
  return job.attempts.map((a) => [
    String(a.n),
    a.provider,
    badge(a.id === job.completedBy ? 'winner' : a.state),
    a.origin ?? '-',
    timeMs(a.startedAt),
    timeMs(a.finishedAt),
    duration(a.startedAt, a.finishedAt),
    micros(a.costMicros),
    a.error ? h('span', { class: 'mono' }, a.error.code ?? JSON.stringify(a.error)) : '-',
    !settled && (a.state === 'running' || a.state === 'unknown')
      ? actionButton(`Abandon #${a.n}`, () => abandonAction(job, a, refresh), { class: 'action danger' })
      : '',
  ]);
}

/** One table row per audit event of the job. */
function eventRows(job, eventList) {
  return eventList.map((e) => [
    timeMs(e.createdAt),
    e.type,
    e.attemptId ? `attempt ${job.attempts.find((a) => a.id === e.attemptId)?.n ?? short(e.attemptId)}` : '-',
    h('span', { class: 'mono' }, Object.keys(e.data ?? {}).length ? JSON.stringify(e.data) : ''),
  ]);
}

/** One table row per outbox event of the job, with its delivery per publisher. */
function deliveryRows(deliveries) {
  return Array.isArray(deliveries)
    ? deliveries.map((d) => [
        time(d.createdAt),
        d.type,
        d.deliveries.length
          ? h(
              'span',
              {},
              d.deliveries.map((x, i) =>
                h(
                  'span',
                  {},
                  i ? ', ' : '',
                  `${x.publisher}: `,
                  badge(x.state),
                  x.attempts ? ` (${x.attempts} refused)` : '',
                  x.replays ? ` (replayed ${x.replays}×)` : '',
                ),
              ),
            )
          : 'waiting for a relay',
      ])
    : [];
}

/** Draws the job page from a loaded job, its events and its outbox deliveries. */
export function renderJob({ job, events, deliveries }, refresh, live, announce = false) {
  const eventList = Array.isArray(events) ? events : [];
  const settled = FINAL_STATES.includes(job.state);
  const content = [
    live
      ? h(
          'p',
          { class: 'live', 'data-testid': 'live-status' },
          'Live: this page updates itself until the job succeeds, fails or is cancelled.',
        )
      : null,
    jobFacts(job),
    jobActions(job, settled, refresh),
    h('h3', {}, 'Attempts'),
    legend(),
    // A narrow screen shows the attempts as a list of sentences instead of the drawing.
    h('div', { class: 'scroll' }, drawTimeline(job, eventList)),
    listAttempts(job, eventList),
    table(
      'Attempts',
      ['N', 'Provider', 'State', 'Origin', 'Started', 'Finished', 'Took', 'Cost (micros)', 'Error', 'Action'],
      attemptRows(job, settled, refresh),
      'No attempts yet.',
    ),
    h('h3', {}, 'Input'),
    json(job.input),
    job.result !== null ? [h('h3', {}, 'Result'), json(job.result)] : null,
    job.error ? [h('h3', {}, 'Error'), json(job.error)] : null,
    h('h3', {}, 'Events'),
    Array.isArray(events)
      ? table('Job events, oldest first', ['When', 'Event', 'Attempt', 'Data'], eventRows(job, eventList))
      : failure(events, 'Job events'),
    h('h3', {}, 'Outbox deliveries'),
    Array.isArray(deliveries)
      ? table(
          'Outbox events of this job',
          ['Written', 'Event', 'Delivery per publisher'],
          deliveryRows(deliveries),
          'No outbox events.',
        )
      : failure(deliveries, 'Outbox deliveries'),
  ];
  if (announce) show(`Job ${short(job.id)}`, content);
  else {
    render(`Job ${short(job.id)}`, content);
    statusLine.textContent = `Job ${short(job.id)} is ${job.state}`;
  }
}

/** The timeline's colours and marks, each with its words: colour is never the only signal. */
function legend() {
  const item = (swatch, text) =>
    h('li', {}, h('span', { class: `swatch ${swatch}`, 'aria-hidden': 'true' }), text);
  return h(
    'ul',
    { class: 'legend', 'aria-label': 'Timeline legend' },
    item('succeeded', '★ winner'),
    item('running', 'starting or running'),
    item('unknown', '? timed out: outcome unknown (hatched)'),
    item('failed', '✕ failed'),
    item('lost_race', '✕ lost the race'),
    item('abandoned', '⊘ abandoned'),
    h('li', {}, h('span', { class: 'swatch break', 'aria-hidden': 'true' }, '≈'), 'a long wait, shortened'),
  );
}
