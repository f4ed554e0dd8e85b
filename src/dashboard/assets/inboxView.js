// The inbox view.
import { api, failure } from './api.js';
import { h, short, table, time } from './dom.js';
import { show } from './view.js';

/** The inbox: its sources and their recent deliveries. */
export async function inboxView() {
  show('Inbox', h('p', {}, 'Loading…'));
  try {
    const data = await api('/v1/dashboard/inbox');
    show(
      'Inbox',
      h(
        'p',
        {},
        "Webhook events by the sender's event id. However often one is redelivered, it made one job.",
      ),
      table(
        'Inbox events, newest first',
        ['Source', 'Event id', 'Job', 'Deliveries', 'Redeliveries', 'Differing bodies', 'First', 'Last'],
        data.items.map((e) => [
          e.source,
          h('span', { class: 'mono' }, e.eventId),
          e.jobId ? h('a', { href: `#/jobs/${e.jobId}`, class: 'mono nowrap' }, short(e.jobId)) : '-',
          String(e.deliveries),
          String(e.redeliveries),
          String(e.differingPayloads),
          time(e.firstReceivedAt),
          time(e.lastReceivedAt),
        ]),
        'No webhook events received.',
      ),
    );
  } catch (error) {
    show('Inbox', failure(error, 'The inbox'));
  }
}
