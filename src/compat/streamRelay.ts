// The text relay of a compat attempt (docs/compat.md#streams): the provider adapter hands
// each text delta to `onText` (ProviderCall.onText). The first claims the job's stream
// (claimStream), which makes this attempt the only one that can complete the job; from
// then on its text reaches this process's live streams. The worker only hears that the
// claim was made (stop hedging, abort the siblings) or refused (abort this call).
import type { Queryable } from '../db/createPool.js';
import type { Operation } from '../operations/operationRegistry.js';
import { claimStream } from './claimStream.js';
import { COMPAT_KIND } from './compatModels.js';
import { liveStreams } from './liveStreams.js';

export interface TextRelayHooks {
  /** This attempt's first text claimed the job's stream. */
  claimed(): void;
  /** A sibling claimed it first: this attempt may not produce the job's text. */
  refused(): void;
}

export interface TextRelay {
  /** False once the claim was refused: the adapter stops reading. */
  onText(delta: string): Promise<boolean>;
  /** The call ended; the rest of the text comes from the stored completion. */
  close(): void;
}

/** The relay of an attempt, or undefined for an operation whose text is not relayed. */
export type RelayText = (
  operation: Operation,
  attempt: { id: string; jobId: string },
  hooks: TextRelayHooks,
) => TextRelay | undefined;

export function compatTextRelay(db: Queryable): RelayText {
  return (operation, attempt, hooks) => {
    if (operation.kind !== COMPAT_KIND) return undefined;
    let claimed = false;
    return {
      async onText(delta) {
        if (!claimed) {
          if (!(await claimStream(db, attempt.id))) {
            hooks.refused();
            return false;
          }
          claimed = true;
          hooks.claimed();
          liveStreams.open(attempt.jobId, attempt.id);
        }
        liveStreams.append(attempt.jobId, attempt.id, delta);
        return true;
      },
      close: () => liveStreams.close(attempt.jobId, attempt.id),
    };
  };
}
