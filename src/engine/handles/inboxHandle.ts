// onejob.inbox: signed webhooks received from your own HTTP framework, with the same
// answers `POST /v1/inbox/{source}` gives.
import type { OnejobConfig } from '../../config/types.js';
import { OnejobError } from '../../errors/OnejobError.js';
import type { DeliveryAnswer, DeliveryBatcher } from '../../inbox/acceptDelivery.js';
import { createDeliveryBatcher, type DeliveryBatcherOptions } from '../../inbox/createDeliveryBatcher.js';
import { type InboxSource, inboxSources } from '../../inbox/inboxSources.js';
import { type InboxEventsFilter, type InboxEventView, listInboxEvents } from '../../inbox/listInboxEvents.js';
import { type RawDelivery, receiveWebhook } from '../../inbox/receiveWebhook.js';
import type { InboxDeps } from '../engineDeps.js';

/**
 * `onejob.inbox`: signed webhooks received through your own HTTP framework.
 *
 * @example
 * ```ts
 * const answer = await onejob.inbox.receive('shop', { headers: req.headers, rawBody: req.rawBody });
 * res.status(answer.status).json(answer.body);
 * ```
 */
export interface InboxHandle {
  /** The configured sources, built once (a missing secret throws here, naming the source). */
  sources(): ReadonlyMap<string, InboxSource>;
  /**
   * Verifies and records one delivery to `source`; answers like the HTTP route (202 with
   * the job id, the same body and `replayed: true` for a redelivery). Throws
   * `source_unknown`, `event_id_missing`, `signature_invalid`, ...
   */
  receive(source: string, delivery: RawDelivery): Promise<DeliveryAnswer & { eventId: string }>;
  /** Recorded events newest first, optionally of one source or one owner, with how often each was delivered. */
  list(query?: InboxEventsFilter): Promise<InboxEventView[]>;
}

/** Acceptance's dependencies, the config and env the sources are built from, and the group commit's options. */
export type InboxHandleDeps = InboxDeps & {
  readonly config: OnejobConfig;
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Deliveries share commits (group commit) unless this is left out. */
  readonly batching?: DeliveryBatcherOptions;
};

export function createInboxHandle(deps: InboxHandleDeps): InboxHandle {
  const { config, env = process.env, batching } = deps;
  let built: Map<string, InboxSource> | undefined;
  let batcher: DeliveryBatcher | undefined;
  const deliveries = () => {
    if (batching) batcher ??= createDeliveryBatcher(deps, batching);
    return batcher;
  };
  const sources = () => {
    built ??= inboxSources(config, env);
    return built;
  };
  return {
    sources,
    async receive(name, delivery) {
      const source = sources().get(name);
      if (!source) throw new OnejobError('source_unknown', `No inbox source is configured as "${name}".`);
      let answer: DeliveryAnswer & { eventId: string };
      try {
        answer = await receiveWebhook(deps, source, delivery, new Date(), deliveries());
      } catch (error) {
        const outcome = error instanceof OnejobError ? error.code : 'error';
        deps.metrics.inboxDeliveries.inc({ source: source.name, outcome });
        throw error;
      }
      deps.metrics.inboxDeliveries.inc({
        source: source.name,
        outcome: answer.replayed ? 'replayed' : 'accepted',
      });
      return answer;
    },
    list: (query) => listInboxEvents(deps.pool, query),
  };
}
