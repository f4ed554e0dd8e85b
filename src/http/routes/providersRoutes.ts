import type { FastifyInstance } from 'fastify';
import { providerListSchema, verificationReportSchema } from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { answer, problemResponse } from '../schemas.js';

export async function providersRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
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

  app.post<{ Params: { name: string }; Body: { operation: string } }>(
    '/v1/providers/:name/verify',
    {
      // Verification calls the provider (and costs money): operators only.
      config: { admin: true },
      schema: {
        summary: "Verify that a provider honours an operation's contract (admin token)",
        tags: ['providers'],
        security: [{ bearer: [] }],
        params: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', maxLength: 64 } },
        },
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['operation'],
          properties: { operation: { type: 'string', minLength: 1, maxLength: 64 } },
        },
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
