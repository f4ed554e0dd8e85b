// The `charge` operation, written in TypeScript: one call to the payment API per attempt,
// with the job's idempotency key, so every retry of the job is one charge at the API.
import { DefiniteFailure, defineOperation } from '../../src/index.js';

export function chargeOperation(paymentApiUrl: string) {
  return defineOperation('charge', {
    inputSchema: {
      type: 'object',
      required: ['orderId', 'amount', 'currency'],
      additionalProperties: false,
      properties: {
        orderId: { type: 'string', minLength: 1 },
        amount: { type: 'integer', minimum: 1 },
        currency: { enum: ['EUR', 'USD'] },
      },
    },
    effect: 'exclusive',
    attemptTimeoutMs: 5_000,
    maxAttempts: 3,
    // The API dedupes on Idempotency-Key, so running the call again is safe: the engine may
    // resolve an unknown attempt by asking again instead of waiting for a person.
    idempotent: true,
    async run(ctx) {
      let response: Response;
      try {
        response = await fetch(`${paymentApiUrl}/v1/charges`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': ctx.downstreamKey },
          body: JSON.stringify({
            amount: ctx.input.amount,
            currency: ctx.input.currency,
            metadata: { orderId: ctx.input.orderId },
          }),
          signal: ctx.signal,
        });
      } catch (error) {
        // Refused before anything was sent: provably not charged.
        if ((error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED')
          throw new DefiniteFailure('payment API unreachable', { code: 'connection_refused', cause: error });
        throw error; // A timeout or a reset after sending: maybe charged. Unknown.
      }
      if (response.status === 402) throw new DefiniteFailure('card declined', { code: 'card_declined' });
      if (!response.ok) throw new Error(`payment API answered ${response.status}`);
      const charge = (await response.json()) as { id: string; amount: number };
      ctx.logger.info({ chargeId: charge.id }, 'charged');
      return { chargeId: charge.id, amount: charge.amount };
    },
  });
}
