// Each vendor names the neutral finish reasons its own way: one map per vendor, read in
// both directions, so the answer a client gets and the answer a provider gave agree.
import type { FinishReason } from './chatRequest.js';

export interface FinishReasons<W extends string = string> {
  /** The vendor's name for a completion's finish reason. */
  toWire(reason: FinishReason): W;
  /** The neutral reason a provider's answer names; an unknown or absent one is `stop`. */
  fromWire(reason: string | null | undefined): FinishReason;
}

/** Where two neutral reasons share a vendor name, the first listed is what it reads back as. */
export function finishReasons<W extends string>(names: Record<FinishReason, W>): FinishReasons<W> {
  const reasons = Object.keys(names) as FinishReason[];
  return {
    toWire: (reason) => names[reason],
    fromWire: (reason) => reasons.find((r) => names[r] === reason) ?? 'stop',
  };
}
