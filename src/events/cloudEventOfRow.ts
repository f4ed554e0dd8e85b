/**
 * The SQL that reads the CloudEvent of the event row `a` (a row of onejob.job_events): its
 * stored CloudEvent when it has one (an event of your own, or a row written before
 * migration 0023), else the document onejob.cloud_event builds from the row's fields, the
 * one `cloudEvent()` (cloudEvent.ts) would build. Every reader of the outbox goes through it.
 */
export const cloudEventOfRow = (a: string): string =>
  `onejob.cloud_event(${a}.id, ${a}.job_id, ${a}.publish, ${a}.data, ${a}.event, ${a}.created_at, ${a}.traceparent)`;
