import { AjvCompiler } from '@fastify/ajv-compiler';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import type { Onejob } from '../createOnejob.js';
import { dashboardRoutes } from '../dashboard/dashboardRoutes.js';
import { OnejobError } from '../errors/OnejobError.js';
import { problemDocument } from '../errors/problemDocument.js';
import { isAdminToken } from './adminToken.js';
import { answerClientError } from './answerClientError.js';
import type { ApiKeys } from './apiKeys.js';
import { errorHandler } from './errorHandler.js';
import { endRequestSpan, startRequestSpan } from './requestSpan.js';
import { attemptsRoutes } from './routes/attemptsRoutes.js';
import { healthRoutes } from './routes/healthRoutes.js';
import { inboxEventsRoutes } from './routes/inboxEventsRoutes.js';
import { inboxRoutes } from './routes/inboxRoutes.js';
import { jobEventsRoutes } from './routes/jobEventsRoutes.js';
import { jobsRoutes } from './routes/jobsRoutes.js';
import { ledgerAccountsRoutes } from './routes/ledgerAccountsRoutes.js';
import { ledgerRoutes } from './routes/ledgerRoutes.js';
import { outboxRoutes } from './routes/outboxRoutes.js';
import { providersRoutes } from './routes/providersRoutes.js';
import { attemptSchema, jobSchema, problemSchema } from './schemas.js';
import { sendProblem } from './sendProblem.js';

export interface ServerOptions {
  apiKeys: ApiKeys;
  /** Bearer token for operator endpoints; without it they answer 403. */
  adminToken?: string | undefined;
  /** Serve the web dashboard at `/` and its data routes (default true); the API is the same without it. */
  dashboard?: boolean | undefined;
}

/** Routes that need no bearer token: probes, docs, the inbox (signed by its sender), and the icon browsers ask for. */
const PUBLIC_PREFIXES = ['/healthz', '/readyz', '/metrics', '/openapi.json', '/v1/inbox/', '/favicon.ico'];

export const BODY_LIMIT = 1024 * 1024;

export async function buildServer(onejob: Onejob, options: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: onejob.logger as unknown as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    clientErrorHandler: answerClientError,
    // Fastify's own request logging writes two lines per request (incoming, completed),
    // serialising the request each time: a third of the server's CPU at info level under
    // load. The onResponse hook below writes one shorter line instead.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : uuidv7();
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: false } },
    // Query strings, path parameters and headers are text, so they are coerced to their
    // schema types; JSON bodies have types of their own and are never coerced (an amount
    // of true or "12" is a client bug to report, not a transfer of 1 or 12).
    schemaController: {
      compilersFactory: {
        buildValidator(externalSchemas, ajvOptions) {
          const coercing = AjvCompiler()(externalSchemas, ajvOptions);
          const strict = AjvCompiler()(externalSchemas, {
            ...ajvOptions,
            customOptions: { ...ajvOptions?.customOptions, coerceTypes: false },
          } as typeof ajvOptions);
          return (route) => (route.httpPart === 'body' ? strict(route) : coercing(route));
        },
      },
    },
    routerOptions: { ignoreTrailingSlash: true },
  });
  // Response schemas document the API; serialisation stays plain JSON so no field is dropped.
  // A JSON API: a text/plain body is a client mistake (415), not a string to validate.
  app.removeContentTypeParser('text/plain');
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.addSchema(problemSchema);
  app.addSchema(attemptSchema);
  app.addSchema(jobSchema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'onejob',
        version: '1',
        description:
          'One durable job per user intent. Errors are RFC 9457 problem documents with a stable `code`.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ bearer: [] }],
    },
  });

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new OnejobError('route_not_found', `${request.method} ${request.url.split('?')[0]} is not a route.`),
    ),
  );

  app.addHook('onRequest', async (request) => startRequestSpan(request));
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (
      path === '/' ||
      PUBLIC_PREFIXES.some((p) => path === p || path.startsWith(p)) ||
      path.startsWith('/ui/')
    )
      return;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (request.routeOptions.config?.admin) {
      if (isAdminToken(match?.[1], options.adminToken)) return;
      const why = options.adminToken
        ? 'Send Authorization: Bearer <ONEJOB_ADMIN_TOKEN>.'
        : 'ONEJOB_ADMIN_TOKEN is not set, so operator endpoints are closed.';
      return sendProblem(reply, new OnejobError('admin_token_required', why));
    }
    const owner = match?.[1] ? options.apiKeys.ownerOf(match[1]) : undefined;
    if (!owner) {
      return sendProblem(
        reply,
        new OnejobError(
          'unauthorized',
          match ? 'The bearer token is not recognised.' : 'Send Authorization: Bearer <token>.',
        ),
      );
    }
    request.ownerId = owner;
  });

  app.addHook('onResponse', async (request, reply) => {
    endRequestSpan(request, reply);
    onejob.metrics.httpDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    request.log.info(
      {
        ...request.logFields,
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
  });

  await app.register(healthRoutes, { onejob });
  await app.register(jobsRoutes, { onejob });
  await app.register(attemptsRoutes, { onejob });
  await app.register(inboxRoutes, { onejob });
  await app.register(inboxEventsRoutes, { onejob });
  await app.register(ledgerRoutes, { onejob });
  await app.register(ledgerAccountsRoutes, { onejob });
  await app.register(outboxRoutes, { onejob });
  await app.register(providersRoutes, { onejob });
  await app.register(jobEventsRoutes, { onejob });
  if (options.dashboard !== false) await app.register(dashboardRoutes, { onejob });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
