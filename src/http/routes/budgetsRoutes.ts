import type { FastifyInstance } from 'fastify';
import {
  budgetListSchema,
  budgetParamsSchema,
  budgetSchema,
  setBudgetBodySchema,
} from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { ownerOf } from '../requestContext.js';
import { answer, problemResponse, typed } from '../schemas.js';

/** Budgets (contract section 8): operators set and read any owner's; an owner reads its own. */
export async function budgetsRoutes(server: FastifyInstance, { onejob }: { onejob: Onejob }) {
  const app = typed(server);
  // Operator endpoints: `config: { admin: true }` makes the auth hook demand ONEJOB_ADMIN_TOKEN.
  app.put(
    '/v1/budgets/:ownerId/:currency',
    {
      config: { admin: true },
      schema: {
        summary: "Set or change an owner's budget in a currency; it takes effect at once (admin token)",
        tags: ['budgets'],
        params: budgetParamsSchema,
        body: setBudgetBodySchema,
        response: {
          200: answer('The budget with its current period', budgetSchema),
          400: problemResponse('A field is missing or malformed (request_invalid)'),
          403: problemResponse('Not the admin token (admin_token_required)'),
        },
      },
    },
    async (request) => onejob.budgets.set({ ...request.params, ...request.body }),
  );

  app.get(
    '/v1/budgets/:ownerId/:currency',
    {
      config: { admin: true },
      schema: {
        summary: "An owner's budget in a currency with its current period's usage (admin token)",
        tags: ['budgets'],
        params: budgetParamsSchema,
        response: {
          200: answer('The budget with its current period', budgetSchema),
          400: problemResponse('A malformed currency (request_invalid)'),
          403: problemResponse('Not the admin token (admin_token_required)'),
          404: problemResponse('The owner has no budget in this currency (budget_not_found)'),
        },
      },
    },
    async (request) => onejob.budgets.get(request.params),
  );

  app.get(
    '/v1/budget',
    {
      schema: {
        summary: "The calling owner's budgets, one per currency; none when it is not limited",
        tags: ['budgets'],
        response: { 200: answer("The owner's budgets", budgetListSchema) },
      },
    },
    async (request) => onejob.budgets.list({ ownerId: ownerOf(request) }),
  );
}
