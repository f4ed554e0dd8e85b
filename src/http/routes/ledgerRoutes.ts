import type { FastifyInstance } from 'fastify';
import {
  accountParamsSchema,
  balanceQuerySchema,
  balanceSchema,
  createTransferBodySchema,
  entriesQuerySchema,
  entryPageSchema,
  idParamsSchema,
  pendingTransferSchema,
  postPendingTransferBodySchema,
  reverseTransferBodySchema,
  transferSchema,
  voidPendingTransferBodySchema,
} from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { ownerOf } from '../requestContext.js';
import { answer, problemResponse, type TypedServer, typed } from '../schemas.js';

const transferResponse = (description: string) => answer(description, transferSchema);
const pendingResponse = (description: string) => answer(description, pendingTransferSchema);
// A transfer, or a pending transfer when the request said `"pending": true`.
const transferOrPendingResponse = (description: string) => ({
  description,
  anyOf: [transferSchema, pendingTransferSchema] as const,
});

export async function ledgerRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
  transferRoutes(typed(app), onejob);
  accountRoutes(typed(app), onejob);
}

/** Recording, reversing and reading transfers. */
function transferRoutes(app: TypedServer, onejob: Onejob) {
  app.post(
    '/v1/ledger/transfers',
    {
      schema: {
        summary: 'Record a transfer; the client-chosen id makes retries safe',
        tags: ['ledger'],
        body: createTransferBodySchema,
        response: {
          200: transferOrPendingResponse(
            'The existing transfer (or pending transfer) with the same id and fields (Idempotent-Replayed: true)',
          ),
          201: transferOrPendingResponse('The new transfer, or the new PendingTransfer when pending is true'),
          400: problemResponse('A field is missing or malformed'),
          409: problemResponse('The id names a transfer or pending transfer with different fields'),
          422: problemResponse('An account holds another currency (currency_mismatch)'),
        },
      },
    },
    async (request, reply) => {
      const { pending, ...body } = request.body;
      if (pending) {
        const { pendingTransfer, replayed } = await onejob.ledger.createPendingTransfer({
          ownerId: ownerOf(request),
          ...body,
        });
        if (replayed) reply.header('Idempotent-Replayed', 'true');
        return reply.code(replayed ? 200 : 201).send(pendingTransfer);
      }
      const { transfer, replayed } = await onejob.ledger.createTransfer({
        ownerId: ownerOf(request),
        ...body,
      });
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(replayed ? 200 : 201).send(transfer);
    },
  );

  app.post(
    '/v1/ledger/transfers/:id/reverse',
    {
      schema: {
        summary: 'Reverse a transfer with a new, mirrored transfer linked to it (at most once)',
        tags: ['ledger'],
        params: idParamsSchema,
        body: reverseTransferBodySchema,
        response: {
          200: transferResponse('The same reversal, replayed (Idempotent-Replayed: true)'),
          201: transferResponse('The compensating transfer'),
          404: problemResponse('No such transfer'),
          409: problemResponse('Already reversed, or the reversal id names another transfer'),
        },
      },
    },
    async (request, reply) => {
      const { transfer, replayed } = await onejob.ledger.reverseTransfer({
        ownerId: ownerOf(request),
        transferId: request.params.id,
        ...request.body,
      });
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(replayed ? 200 : 201).send(transfer);
    },
  );

  pendingTransferRoutes(app, onejob);

  app.get(
    '/v1/ledger/transfers/:id',
    {
      schema: {
        summary: 'Read a transfer',
        tags: ['ledger'],
        params: idParamsSchema,
        response: { 200: transferResponse('The transfer'), 404: problemResponse('No such transfer') },
      },
    },
    async (request) => onejob.ledger.getTransfer({ ownerId: ownerOf(request), id: request.params.id }),
  );
}

/** Posting and voiding a pending transfer (two-phase transfers, docs/ledger.md), and reading it. */
function pendingTransferRoutes(app: TypedServer, onejob: Onejob) {
  const resolved = {
    200: pendingResponse('The same resolution, replayed (Idempotent-Replayed: true)'),
    201: pendingResponse('The pending transfer, now resolved'),
    400: problemResponse('A field is malformed (request_invalid)'),
    404: problemResponse('No such pending transfer (pending_transfer_not_found)'),
    409: problemResponse(
      'Already resolved otherwise (pending_transfer_already_resolved), or the id names a transfer that was never pending (transfer_not_pending)',
    ),
  };
  app.post(
    '/v1/ledger/transfers/:id/post',
    {
      schema: {
        summary: 'Post a pending transfer once: move at most the held amount (default all), release the rest',
        tags: ['ledger'],
        params: idParamsSchema,
        body: postPendingTransferBodySchema,
        response: {
          ...resolved,
          422: problemResponse('More than the pending transfer holds (pending_amount_exceeds_hold)'),
        },
      },
    },
    async (request, reply) => {
      const { pendingTransfer, replayed } = await onejob.ledger.postPendingTransfer({
        ownerId: ownerOf(request),
        id: request.params.id,
        ...(request.body ?? {}),
      });
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(replayed ? 200 : 201).send(pendingTransfer);
    },
  );

  app.post(
    '/v1/ledger/transfers/:id/void',
    {
      schema: {
        summary: 'Void a pending transfer once: release all it holds',
        tags: ['ledger'],
        params: idParamsSchema,
        body: voidPendingTransferBodySchema,
        response: resolved,
      },
    },
    async (request, reply) => {
      const { pendingTransfer, replayed } = await onejob.ledger.voidPendingTransfer({
        ownerId: ownerOf(request),
        id: request.params.id,
        ...(request.body ?? {}),
      });
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(replayed ? 200 : 201).send(pendingTransfer);
    },
  );

  app.get(
    '/v1/ledger/transfers/:id/pending',
    {
      schema: {
        summary: 'Read a pending transfer and how it was resolved',
        tags: ['ledger'],
        params: idParamsSchema,
        response: {
          200: pendingResponse('The pending transfer'),
          404: problemResponse('No such pending transfer'),
        },
      },
    },
    async (request) => onejob.ledger.getPendingTransfer({ ownerId: ownerOf(request), id: request.params.id }),
  );
}

/** Balances and entries of an account, as of a moment. */
function accountRoutes(app: TypedServer, onejob: Onejob) {
  app.get(
    '/v1/ledger/accounts/:account',
    {
      schema: {
        summary: 'Balance of an account as recorded at or before asOf (default now)',
        tags: ['ledger'],
        params: accountParamsSchema,
        querystring: balanceQuerySchema,
        response: {
          200: answer('The balance', balanceSchema),
          404: problemResponse('No such account'),
        },
      },
    },
    async (request) =>
      onejob.ledger.getBalance({
        ownerId: ownerOf(request),
        account: request.params.account,
        asOf: request.query.asOf,
      }),
  );

  app.get(
    '/v1/ledger/accounts/:account/entries',
    {
      schema: {
        summary:
          'Entries of an account recorded at or before asOf, oldest first; reversals and originals both',
        tags: ['ledger'],
        params: accountParamsSchema,
        querystring: entriesQuerySchema,
        response: {
          200: answer('One page of entries', entryPageSchema),
          404: problemResponse('No such account'),
        },
      },
    },
    async (request) =>
      onejob.ledger.listEntries({
        ...request.query,
        ownerId: ownerOf(request),
        account: request.params.account,
      }),
  );
}
