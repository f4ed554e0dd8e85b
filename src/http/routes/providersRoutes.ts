import type { FastifyInstance } from 'fastify';
import type { Onejob } from '../../createOnejob.js';
import { problemResponse } from '../schemas.js';

const checkSchema = {
  type: 'object',
  properties: {
    name: { enum: ['output_contract', 'tokenizer', 'round_trip'] },
    status: { enum: ['passed', 'failed', 'skipped', 'waived', 'not_applicable'] },
    reason: { type: 'string' },
    evidence: { type: 'object', additionalProperties: true },
  },
};

const reportSchema = {
  type: 'object',
  description: 'A contract verification: every check of every fixture, with its evidence.',
  properties: {
    id: { type: 'string', format: 'uuid' },
    provider: { type: 'string' },
    operation: { type: 'string' },
    model: { type: ['string', 'null'] },
    contractHash: { type: 'string' },
    temperature: { type: 'number' },
    passed: { type: 'boolean' },
    status: { enum: ['verified', 'failed'] },
    summary: { type: 'string' },
    fixtures: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer' },
          input: { type: 'object' },
          passed: { type: 'boolean' },
          checks: { type: 'array', items: checkSchema },
        },
      },
    },
    startedAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: 'string', format: 'date-time' },
  },
};

export async function providersRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
  app.get(
    '/v1/providers',
    {
      schema: {
        summary: 'Each provider with its contract verification status per operation',
        tags: ['providers'],
        response: {
          200: {
            description: 'verified / stale / failed / never, per provider and operation',
            type: 'object',
            properties: {
              items: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    name: { type: 'string' },
                    kind: { type: 'string' },
                    model: { type: ['string', 'null'] },
                    operations: {
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: {
                          operation: { type: 'string' },
                          role: { enum: ['primary', 'fallback'] },
                          status: { enum: ['verified', 'stale', 'failed', 'never'] },
                          failoverAllowed: { type: 'boolean' },
                          contractHash: { type: 'string' },
                          lastVerification: { type: ['object', 'null'] },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
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
          200: reportSchema,
          403: problemResponse('The admin token is missing or wrong (admin_token_required)'),
          422: problemResponse('Unknown operation, or a provider the operation does not list'),
        },
      },
    },
    async (request) =>
      onejob.providers.verify(request.params.name, request.body.operation, { requestedBy: 'api' }),
  );
}
