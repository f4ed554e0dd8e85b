// The text of a compat job as the attempt that claimed its stream produces it, in this
// process: the attempt runner appends, the stream routes of this process read. Pieces are
// cut as a stored completion is cut (streamPieces), a piece leaving once the next one
// has begun, so what a live stream sends is a prefix of what its replay sends.
// Routes in a process without that attempt wait for the completion instead.

type Listener = (piece: string) => void;

interface Entry {
  attemptId: string | undefined;
  pieces: string[];
  pending: string;
  listeners: Set<Listener>;
}

const entries = new Map<string, Entry>();

/** A whole piece at the start of `text` that is known to be over: the next piece has begun. */
const COMPLETE_PIECE = /^(\s+|\S+\s+)(?=\S)/u;

function entryOf(jobId: string): Entry {
  let entry = entries.get(jobId);
  if (!entry) {
    entry = { attemptId: undefined, pieces: [], pending: '', listeners: new Set() };
    entries.set(jobId, entry);
  }
  return entry;
}

function forget(jobId: string, entry: Entry): void {
  if (entry.attemptId === undefined && entry.listeners.size === 0) entries.delete(jobId);
}

export const liveStreams = {
  /** The attempt that claimed the job's stream starts producing: earlier pieces (of a failed claimer) are dropped. */
  open(jobId: string, attemptId: string): void {
    const entry = entryOf(jobId);
    Object.assign(entry, { attemptId, pieces: [], pending: '' });
  },

  append(jobId: string, attemptId: string, text: string): void {
    const entry = entries.get(jobId);
    if (!entry || entry.attemptId !== attemptId) return;
    entry.pending += text;
    for (let m = COMPLETE_PIECE.exec(entry.pending); m; m = COMPLETE_PIECE.exec(entry.pending)) {
      const piece = m[1]!;
      entry.pending = entry.pending.slice(piece.length);
      entry.pieces.push(piece);
      for (const listener of entry.listeners) listener(piece);
    }
  },

  /** The attempt's call ended; the rest of the text comes from the stored completion. */
  close(jobId: string, attemptId: string): void {
    const entry = entries.get(jobId);
    if (!entry || entry.attemptId !== attemptId) return;
    entry.attemptId = undefined;
    forget(jobId, entry);
  },

  /** The pieces produced so far, and each next one through `listener` until `detach()`. */
  attach(jobId: string, listener: Listener): { pieces: string[]; detach(): void } {
    const entry = entryOf(jobId);
    entry.listeners.add(listener);
    return {
      pieces: [...entry.pieces],
      detach() {
        entry.listeners.delete(listener);
        forget(jobId, entry);
      },
    };
  },
};
