import type { FastifyInstance } from 'fastify';
import {
  providerListSchema,
  providerParamsSchema,
  verificationReportSchema,
  verifyProviderBodySchema,
} from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { answer, problemResponse, typed } from '../schemas.js';

export async function providersRoutes(server: FastifyInstance, { onejob }: { onejob: Onejob }) {
  const app = typed(server);
  app.get(
    '/v1/providers',
    {
      schema: {
        summary: 'Each provider with its contract verification status per operation',
        tags: ['providers'],
        response: {
          200: answer('verified / stale / failed / never, per provider and operation', providerListSchema),
          401: problemResponse('Missing or invalid token'),
        },
      },
    },
    async () => ({ items: await onejob.providers.list() }),
  );

  app.post(
    '/v1/providers/:name/verify',
    {
      // Verification calls the provider (and costs money): operators only.
      config: { admin: true },
      schema: {
        summary: "Verify that a provider honours an operation's contract (admin token)",
        tags: ['providers'],
        security: [{ bearer: [] }],
        params: providerParamsSchema,
        body: verifyProviderBodySchema,
        response: {
          200: answer('The verification report', verificationReportSchema),
          403: problemResponse('The admin token is missing or wrong (admin_token_required)'),
          422: problemResponse('Unknown operation, or a provider the operation does not list'),
        },
      },
    },
    async (request) =>
      onejob.providers.verify(request.params.name, request.body.operation, { requestedBy: 'api' }),
  );
}
