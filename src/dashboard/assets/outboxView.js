// The outbox view.
import { actionButton, replayAction } from './actions.js';
import { api, failure } from './api.js';
import { badge, h, short, table, time, timeMs } from './dom.js';
import { render, show, viewSignal } from './view.js';

/** The outbox: backlog per publisher and the dead letters, with replay. */
export async function outboxView() {
  show('Outbox', h('p', {}, 'Loading…'));
  const signal = viewSignal();
  const load = async (announce) => {
    let data;
    try {
      data = await api('/v1/dashboard/outbox');
    } catch (error) {
      return show('Outbox', failure(error, 'The outbox summary'));
    }
    if (signal.aborted) return;
    const content = [
      h(
        'p',
        {},
        'Events about your jobs, per publisher. Pending rows are the backlog; a dead letter goes back to its publisher when an operator replays it (admin token).',
      ),
      h('h3', {}, 'Backlog'),
      table(
        'Outbox deliveries by publisher and state',
        ['Publisher', 'State', 'Events', 'Oldest'],
        data.backlog.map((b) => [b.publisher, badge(b.state), String(b.count), time(b.oldestAt)]),
        'No deliveries recorded (no relay has registered a publisher yet).',
      ),
      h('h3', {}, 'Dead letters'),
      table(
        'Dead letters',
        ['Dead since', 'Publisher', 'Event', 'Job', 'Refusals', 'Replays', 'Last error', 'Action'],
        data.deadLetters.map((d) => [
          timeMs(d.deadAt),
          d.publisher,
          d.type,
          h('a', { href: `#/jobs/${d.jobId}`, class: 'mono nowrap' }, short(d.jobId)),
          String(d.attempts),
          String(d.replays),
          h('span', { class: 'mono' }, d.lastError ?? ''),
          actionButton('Replay', () => replayAction(d, () => load(false)), {
            'data-event': d.eventId,
          }),
        ]),
        'No dead letters.',
      ),
    ];
    if (announce) show('Outbox', content);
    else render('Outbox', content);
  };
  await load(true);
}
