// The contract every webhook signature scheme implements. A sender that signs its own way
// is one file beside this one (see stripeScheme.ts, githubScheme.ts), registered by name.

/** The parts of a delivery a signature covers. */
export interface SignedDelivery {
  /** Lower-case header names, as Node delivers them. */
  headers: Record<string, string | string[] | undefined>;
  /** The request body exactly as received: signatures cover bytes, not parsed JSON. */
  rawBody: Buffer;
}

/** What a valid signature vouches for. */
export interface SignedPayload {
  /** The signed body: the job's input and the only place a JSON-pointer event id is read from. */
  body: Buffer;
  /** The signed timestamp, or null when the scheme signs none (then only dedup stops replays). */
  timestamp: Date | null;
}

/** What a signature scheme builds for one source: checks each delivery. */
export interface SignatureVerifier {
  /**
   * Throws OnejobError('signature_invalid') unless the delivery is signed with the secret
   * (and, for schemes that sign a timestamp, fresh); returns what the signature covers.
   */
  verify(delivery: SignedDelivery, now: Date): SignedPayload;
}

/** Where a source's event id comes from. */
export type EventIdSource =
  | { kind: 'header'; name: string }
  | { kind: 'json'; pointer: string }
  /** `sha256:<hex>` of the signed body: for senders whose id travels outside the signature. */
  | { kind: 'body-sha256' };

/** Source settings a scheme may accept besides the common ones. */
export interface SchemeOptions {
  /** How far the signed timestamp may be from now, either way. */
  toleranceSeconds: number;
  /** Accept GitHub's SHA-1 `X-Hub-Signature` when no SHA-256 one is sent. */
  allowSha1: boolean;
}

/** A webhook signature scheme, registered by name with `registerSignatureScheme`. */
export interface SignatureScheme {
  /** Builds a verifier for one source from its secret; throws if the secret is unusable. */
  verifier(secret: string, options: SchemeOptions): SignatureVerifier;
  /** Where the event id is when the source sets no `eventId`. */
  defaultEventId: EventIdSource;
  /** Lower-case headers the signature covers: a source may take its event id from these. */
  signedHeaders: readonly string[];
  /**
   * Lower-case headers the signature does not cover that a source may still name as its
   * event id, only with `"unsignedEventId": true`. Any other header is refused at start.
   */
  unsignedHeaders?: readonly string[];
  /** The optional source settings this scheme understands; any other is refused at start. */
  settings: readonly (keyof SchemeOptions)[];
}
