// Type tests: checked by `tsc --noEmit` (and by vitest, which runs them as plain calls).
import { describe, expectTypeOf, it } from 'vitest';
import {
  createOnejob,
  DefiniteFailure,
  defineOperation,
  type ErrorCode,
  isOnejobError,
  type JobView,
  type Onejob,
  OnejobError,
  type RunContext,
  typedSchema,
} from '../../src/index.js';

const charge = defineOperation('charge', {
  inputSchema: {
    type: 'object',
    required: ['amount', 'currency'],
    properties: {
      amount: { type: 'integer' },
      currency: { enum: ['EUR', 'USD'] },
      note: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
    },
  },
  attemptTimeoutMs: 1_000,
  async run(ctx) {
    expectTypeOf(ctx.input).toEqualTypeOf<{ amount: number; currency: 'EUR' | 'USD'; note?: string; tags?: string[] }>();
    expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
    expectTypeOf(ctx.idempotencyKey).toEqualTypeOf<string>();
    expectTypeOf(ctx.attempt).toEqualTypeOf<number>();
    return { chargeId: 'ch_1', amount: ctx.input.amount };
  },
});

interface RefundInput {
  chargeId: string;
  reason?: string;
}
const refund = defineOperation('refund', {
  inputSchema: typedSchema<RefundInput>({ type: 'object', required: ['chargeId'], properties: { chargeId: { type: 'string' }, reason: { type: 'string' } } }),
  attemptTimeoutMs: 1_000,
  run: (ctx) => {
    expectTypeOf(ctx.input).toEqualTypeOf<RefundInput>();
    return ctx.input.chargeId.length > 0;
  },
});

// A TypeBox-shaped schema: its `static` member is the input type.
const typeboxLike = { type: 'object', properties: {} } as unknown as { static: { sku: string }; type: 'object' };
const reserve = defineOperation('reserve', {
  inputSchema: typeboxLike,
  attemptTimeoutMs: 1_000,
  run: (ctx: RunContext<{ sku: string }>) => ({ reserved: ctx.input.sku }),
});

// Never called: only its types matter.
function engine() {
  return createOnejob({ connectionString: 'postgres://unused', operations: [charge, refund, reserve] });
}

describe('the public API infers input and result types', () => {
  it('jobs.create takes a code operation input type and returns its result type', () => {
    const onejob = null as unknown as ReturnType<typeof engine>;
    type Create<O extends string> = typeof onejob.jobs.create<O>;
    expectTypeOf<Parameters<Create<'charge'>>[0]['input']>().toEqualTypeOf<{
      amount: number;
      currency: 'EUR' | 'USD';
      note?: string;
      tags?: string[];
    }>();
    expectTypeOf<Awaited<ReturnType<Create<'charge'>>>['job']['result']>().toEqualTypeOf<{ chargeId: string; amount: number } | null>();
    expectTypeOf<Parameters<Create<'refund'>>[0]['input']>().toEqualTypeOf<RefundInput>();
    expectTypeOf<Awaited<ReturnType<Create<'refund'>>>['job']['result']>().toEqualTypeOf<boolean | null>();
    expectTypeOf<Parameters<Create<'reserve'>>[0]['input']>().toEqualTypeOf<{ sku: string }>();
    // An operation known only at run time (config, HTTP body) keeps the untyped shape.
    expectTypeOf<Parameters<Create<string>>[0]['input']>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<Awaited<ReturnType<Create<string>>>['job']['result']>().toEqualTypeOf<unknown>();
  });

  it('wrong input for a code operation does not compile', () => {
    const onejob = engine();
    const calls = () => {
      // @ts-expect-error amount must be a number
      void onejob.jobs.create({ ownerId: 'o', idempotencyKey: 'k', operation: 'charge', input: { amount: '1', currency: 'EUR' } });
      // @ts-expect-error currency is required
      void onejob.jobs.create({ ownerId: 'o', idempotencyKey: 'k', operation: 'charge', input: { amount: 1 } });
      // @ts-expect-error chargeId is required
      void onejob.jobs.create({ ownerId: 'o', idempotencyKey: 'k', operation: 'refund', input: {} });
      void onejob.jobs.create({ ownerId: 'o', idempotencyKey: 'k', operation: 'charge', input: { amount: 1, currency: 'EUR' } });
    };
    expectTypeOf(calls).toBeFunction();
  });

  it('jobs.get and jobs.wait are typed by the operation they name', () => {
    const onejob = null as unknown as ReturnType<typeof engine>;
    expectTypeOf<Awaited<ReturnType<typeof onejob.jobs.get<'charge'>>>['result']>().toEqualTypeOf<{ chargeId: string; amount: number } | null>();
    expectTypeOf<Awaited<ReturnType<typeof onejob.jobs.wait<'refund'>>>['input']>().toEqualTypeOf<RefundInput>();
    expectTypeOf<Awaited<ReturnType<typeof onejob.jobs.get>>>().toEqualTypeOf<JobView<Record<string, unknown>, unknown>>();
  });

  it('a typed engine is an Onejob, so it goes wherever the engine does', () => {
    expectTypeOf<ReturnType<typeof engine>>().toExtend<Onejob>();
  });

  it('errors carry their stable codes', () => {
    const e: unknown = new OnejobError('idempotency_key_reused');
    if (isOnejobError(e, 'idempotency_key_reused')) expectTypeOf(e.code).toEqualTypeOf<ErrorCode>();
    expectTypeOf(new DefiniteFailure('declined', { code: 'card_declined' }).code).toEqualTypeOf<string>();
    // @ts-expect-error not a registered code
    isOnejobError(e, 'no_such_code');
  });
});
