import type { Server } from 'node:http';
import { AjvCompiler } from '@fastify/ajv-compiler';
import swagger from '@fastify/swagger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyInstance,
  LogController,
} from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { compatRoutes } from '../compat/routes/compatRoutes.js';
import type { Onejob } from '../createOnejob.js';
import { dashboardRoutes } from '../dashboard/dashboardRoutes.js';
import { OnejobError } from '../errors/OnejobError.js';
import type { ApiKeys } from './apiKeys.js';
import { authenticate } from './authenticate.js';
import { checkInputValues } from './checkInputValues.js';
import { clientErrorHandler } from './clientErrorHandler.js';
import { errorHandler } from './errorHandler.js';
import { type HttpSettings, httpSettings, type LimitSettings, limitSettings } from './httpSettings.js';
import { useJsonBodyParser } from './jsonBodyParser.js';
import { TokenBuckets } from './limits/TokenBuckets.js';
import { WaitSlots } from './limits/WaitSlots.js';
import { endRequestSpan, startRequestSpan } from './requestSpan.js';
import { attemptsRoutes } from './routes/attemptsRoutes.js';
import { budgetsRoutes } from './routes/budgetsRoutes.js';
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
  /** Bearer token for `/metrics`; without it only loopback clients are served. */
  metricsToken?: string | undefined;
  /** Serve the web dashboard at `/` and its data routes (default true); the API is the same without it. */
  dashboard?: boolean | undefined;
}

export const BODY_LIMIT = 1024 * 1024;

/** Fastify's settings: deadlines from `http`, one log line per request, body-only strict types. */
function serverOptions(onejob: Onejob, http: HttpSettings): FastifyHttpOptions<Server> {
  return {
    // Node checks request and header deadlines on an interval (30 s by default), so a
    // trickled body would outlive a short timeout by up to that long.
    http: {
      requestTimeout: http.requestTimeoutMs,
      // Node refuses a headers timeout longer than the request timeout; the shorter one wins anyway.
      headersTimeout: Math.min(http.headersTimeoutMs, http.requestTimeoutMs),
      connectionsCheckingInterval: Math.max(100, Math.min(http.headersTimeoutMs, http.requestTimeoutMs) / 4),
    },
    requestTimeout: http.requestTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    loggerInstance: onejob.logger as unknown as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    clientErrorHandler,
    // Fastify's own request logging writes two lines per request (incoming, completed),
    // serialising the request each time: a third of the server's CPU at info level under
    // load. The onResponse hook below writes one shorter line instead.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : uuidv7();
    },
    // verbose: a failure carries its schema, so an unknown property's problem can list the
    // known ones (src/http/validationProblem.ts); it costs nothing on a valid request.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: false, verbose: true } },
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
  };
}

/** Errors as problem documents, then per request: a span, authentication, value checks, metrics and one log line. */
function addRequestHooks(
  app: FastifyInstance,
  onejob: Onejob,
  options: ServerOptions,
  limits: LimitSettings,
) {
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new OnejobError('route_not_found', `${request.method} ${request.url.split('?')[0]} is not a route.`),
    ),
  );

  app.addHook('onRequest', async (request) => startRequestSpan(request));
  app.addHook(
    'onRequest',
    authenticate({
      apiKeys: options.apiKeys,
      adminToken: options.adminToken,
      metricsToken: options.metricsToken,
      requests: limits.enabled ? new TokenBuckets(limits.requestsPerSecond, limits.requestBurst) : undefined,
      // Its own switch, not limits.enabled: per-owner limits are a throughput choice, the
      // throttle on token guessing is a security one (off only when the config says so).
      failures: limits.authFailureThrottle
        ? new TokenBuckets(limits.authFailuresPerSecond, limits.authFailureBurst)
        : undefined,
    }),
  );
  // After validation, so it also sees what the query string was coerced to ("1e400" is Infinity).
  app.addHook('preHandler', checkInputValues);

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
}

/** Every route group; long-polls and dashboard job streams share each owner's slots. */
async function registerRoutes(
  app: FastifyInstance,
  onejob: Onejob,
  options: ServerOptions,
  settings: { http: HttpSettings; limits: LimitSettings },
) {
  const { http, limits } = settings;
  const waitSlots = new WaitSlots(http.maxWaitsPerOwner);
  await app.register(healthRoutes, { onejob });
  await app.register(jobsRoutes, {
    onejob,
    jobBuckets: limits.enabled ? new TokenBuckets(limits.jobsPerSecond, limits.jobBurst) : undefined,
    waitSlots,
    listSlots: new WaitSlots(http.maxListsPerOwner),
    maxListBytes: http.maxListBytes,
  });
  await app.register(attemptsRoutes, { onejob });
  await app.register(inboxRoutes, { onejob });
  await app.register(inboxEventsRoutes, { onejob });
  await app.register(ledgerRoutes, { onejob });
  await app.register(ledgerAccountsRoutes, { onejob });
  await app.register(budgetsRoutes, { onejob });
  await app.register(outboxRoutes, { onejob });
  await app.register(providersRoutes, { onejob });
  await app.register(jobEventsRoutes, { onejob });
  // The SDK drop-in (docs/compat.md): its waits count in the owner's long-poll slots.
  await app.register(compatRoutes, { onejob, waitSlots });
  if (options.dashboard !== false) await app.register(dashboardRoutes, { onejob, waitSlots });
}

export async function buildServer(onejob: Onejob, options: ServerOptions): Promise<FastifyInstance> {
  const http = httpSettings(onejob.config.http);
  const limits = limitSettings(onejob.config.limits);
  if (!limits.authFailureThrottle)
    onejob.logger.warn(
      'limits.authFailureThrottle is false: failed authentications are not throttled, so tokens can be guessed as fast as the server answers',
    );
  else if (!limits.enabled)
    onejob.logger.info(
      'limits.enabled is false: no per-owner request or job buckets; failed authentications are still throttled (limits.authFailureThrottle)',
    );
  const app = Fastify(serverOptions(onejob, http));

  // Response schemas document the API; serialisation stays plain JSON so no field is dropped.
  // A JSON API: a text/plain body is a client mistake (415), not a string to validate.
  app.removeContentTypeParser('text/plain');
  useJsonBodyParser(app);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.addSchema(problemSchema);
  app.addSchema(attemptSchema);
  app.addSchema(jobSchema);

  await app.register(swagger, {
    // Shared schemas keep their `$id` as their component name (`Job`, `Attempt`, `Problem`),
    // so generated clients get those type names rather than `def-0`, `def-1`, ...
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
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

  addRequestHooks(app, onejob, options, limits);
  await registerRoutes(app, onejob, options, { http, limits });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
  return app;
}
