// (e) baseline: JetStream publish with Nats-Msg-Id (broker-side dedup), waiting for each ack.
import { randomBytes } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { v7 as uuidv7 } from 'uuid';
import { type LoadResult, type LoadWindow, loadWindow, measureLoad } from '../measureLoad.js';

export interface JetStreamRun extends LoadWindow {
  natsUrl: string;
}

export async function jetstreamPublish(r: JetStreamRun): Promise<LoadResult> {
  const nc = await connect({ servers: r.natsUrl });
  const stream = `ONEJOB_BENCH_${randomBytes(3).toString('hex').toUpperCase()}`;
  const subject = `${stream.toLowerCase()}.job.created`;
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [`${stream.toLowerCase()}.>`] });
    const js = jetstream(nc);
    try {
      return await measureLoad({
        label: 'raw JetStream publish',
        ...loadWindow(r),
        op: async () => {
          const id = uuidv7();
          // About the size of a onejob.job.created CloudEvent.
          const event = `{"specversion":"1.0","id":"${id}","source":"onejob","type":"onejob.job.created","subject":"${uuidv7()}","time":"${new Date().toISOString()}","datacontenttype":"application/json","data":{"jobId":"${id}","operation":"noop","idempotencyKey":"k-${id}","state":"queued","version":1}}`;
          const ack = await js.publish(subject, event, { msgID: id });
          if (ack.duplicate) throw new Error('JetStream reported a unique message id as duplicate');
        },
      });
    } finally {
      await jsm.streams.delete(stream);
    }
  } finally {
    await nc.close();
  }
}
