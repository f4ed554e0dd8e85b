// What the inbox routes are asked (docs/inbox.md): the source a webhook is sent to, and
// the filter and size of the recorded events' list.
import type { FromSchema } from 'json-schema-to-ts';

/** `{source}` in the path of `POST /v1/inbox/{source}`. */
export const inboxSourceParamsSchema = {
  type: 'object',
  required: ['source'],
  properties: { source: { type: 'string' } },
  additionalProperties: false,
} as const;

/** The query of `GET /v1/inbox-events` and of the dashboard's summaries. */
export const inboxEventsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    source: { type: 'string', maxLength: 200 },
    limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
  },
} as const;

/** The source a webhook is sent to. */
export type InboxSourceParams = FromSchema<typeof inboxSourceParamsSchema>;
/** Which recorded events to list, as a caller sends it. */
export type InboxEventsQuery = FromSchema<
  typeof inboxEventsQuerySchema,
  { keepDefaultedPropertiesOptional: true }
>;
