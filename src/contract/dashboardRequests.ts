// What the dashboard's summary routes are asked (docs/dashboard.md): how many rows, and
// for the inbox, of which source.
import { inboxEventsQuerySchema } from './inboxRequests.js';

/** The query of `GET /v1/dashboard/outbox` and `GET /v1/dashboard/inbox`: the inbox events' filter, 100 rows unless asked. */
export const dashboardQuerySchema = {
  ...inboxEventsQuerySchema,
  properties: {
    limit: { ...inboxEventsQuerySchema.properties.limit, default: 100 },
    source: inboxEventsQuerySchema.properties.source,
  },
} as const;
