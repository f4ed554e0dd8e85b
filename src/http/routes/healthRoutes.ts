import type { FastifyInstance } from 'fastify';
import { healthSchema, readinessSchema } from '../../contract/index.js';
import type { Onejob } from '../../createOnejob.js';
import { loadMigrations } from '../../db/migrate.js';
import { answer, problemResponse } from '../schemas.js';
import { sendProblem } from '../sendProblem.js';

export async function healthRoutes(app: FastifyInstance, { onejob }: { onejob: Onejob }) {
  const latest = (await loadMigrations()).at(-1)?.version ?? 0;

  app.get(
    '/healthz',
    {
      schema: {
        summary: 'The process is up',
        tags: ['operations'],
        response: { 200: answer('The process is up', healthSchema) },
      },
      config: { public: true },
    },
    async () => ({
      status: 'ok',
    }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'The database is reachable and migrated',
        tags: ['operations'],
        response: {
          200: answer('Reachable, and migrated to the version the code expects', readinessSchema),
          503: problemResponse('The database cannot be reached, or migrations are pending'),
        },
      },
      config: { public: true },
    },
    async (_req, reply) => {
      let version: number;
      try {
        // Its first query also answers whether the database can be reached.
        version = await onejob.schemaVersion();
      } catch {
        return sendProblem(reply, 'database_unavailable', 'The database cannot be reached.');
      }
      if (version < latest) {
        return sendProblem(
          reply,
          'database_unavailable',
          `Migrations pending: database at ${version}, code expects ${latest}.`,
        );
      }
      return { status: 'ready', migration: version };
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics; needs ONEJOB_METRICS_TOKEN as the bearer token when it is set',
        tags: ['operations'],
      },
      config: { metrics: true },
    },
    async (_req, reply) => {
      reply.type(onejob.metrics.registry.contentType);
      return onejob.metrics.registry.metrics();
    },
  );
}
