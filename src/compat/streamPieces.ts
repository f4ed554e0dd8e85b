// How a stored completion is cut into stream deltas: at word boundaries, each piece a
// word and the white space after it. Deterministic, so a stream and its replay carry the
// same pieces in the same order; joined, they are the text exactly.
const PIECE = /\s+|\S+\s*/gu;

export function streamPieces(text: string): string[] {
  return text.match(PIECE) ?? [];
}
