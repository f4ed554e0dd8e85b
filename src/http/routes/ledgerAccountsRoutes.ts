import type { FastifyInstance } from 'fastify';
import { accountPageSchema } from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { ownerOf } from '../requestContext.js';
import { answer, problemResponse } from '../schemas.js';

export async function ledgerAccountsRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
  app.get<{ Querystring: { asOf?: string; after?: string; limit?: number } }>(
    '/v1/ledger/accounts',
    {
      schema: {
        summary: "The owner's accounts with their balances as recorded at or before asOf (default now)",
        tags: ['ledger'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            asOf: {
              type: 'string',
              description: 'ISO 8601 instant; only transfers recorded at or before it count',
            },
            after: { type: 'string', maxLength: 200, description: "The previous page's nextAfter" },
            limit: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
          },
        },
        response: {
          200: answer('One page of accounts, by name', accountPageSchema),
          400: problemResponse('asOf or after is not valid (request_invalid)'),
        },
      },
    },
    async (request) => onejob.ledger.listAccounts({ ownerId: ownerOf(request), ...request.query }),
  );
}
