import type { FastifyInstance } from 'fastify';
import { accountPageSchema, accountsQuerySchema } from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { ownerOf } from '../requestContext.js';
import { answer, problemResponse, typed } from '../schemas.js';

export async function ledgerAccountsRoutes(server: FastifyInstance, { onejob }: { onejob: Onejob }) {
  typed(server).get(
    '/v1/ledger/accounts',
    {
      schema: {
        summary: "The owner's accounts with their balances as recorded at or before asOf (default now)",
        tags: ['ledger'],
        querystring: accountsQuerySchema,
        response: {
          200: answer('One page of accounts, by name', accountPageSchema),
          400: problemResponse('asOf or after is not valid (request_invalid)'),
        },
      },
    },
    async (request) => onejob.ledger.listAccounts({ ownerId: ownerOf(request), ...request.query }),
  );
}
