/** A CloudEvents 1.0 structured-mode event, as written to the outbox and published. */
export interface CloudEvent<T = Record<string, unknown>> {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  data: T;
  /** W3C trace context of the request that caused the event (CloudEvents distributed tracing extension). */
  traceparent?: string;
}

export const EVENT_SOURCE = 'onejob';

export function cloudEvent<T extends Record<string, unknown>>(e: {
  id: string;
  type: string;
  subject: string;
  data: T;
  time?: Date;
  traceparent?: string | null;
  /** Default `onejob`; an event of your own may name its own source. */
  source?: string;
}): CloudEvent<T> {
  const event: CloudEvent<T> = {
    specversion: '1.0',
    id: e.id,
    source: e.source ?? EVENT_SOURCE,
    type: e.type,
    subject: e.subject,
    time: (e.time ?? new Date()).toISOString(),
    datacontenttype: 'application/json',
    data: e.data,
  };
  if (e.traceparent) event.traceparent = e.traceparent;
  return event;
}
