import type { FastifyInstance } from 'fastify';
import type { Onejob } from '../createOnejob.js';
import type { WaitSlots } from '../http/limits/WaitSlots.js';
import { loadDashboardAssets } from './dashboardAssets.js';
import { dashboardDataRoutes } from './dashboardDataRoutes.js';
import { jobStreamRoutes } from './jobStreamRoutes.js';

// The page holds no data and no secret: it asks for the token and calls the JSON API with
// it. `/`, `/ui/*` and `/favicon.ico` need no bearer token for that reason.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/**
 * The web dashboard at `/`, its assets under `/ui/`, and its owner-scoped summaries. The
 * job history it shows comes from the API's own routes (`/v1/jobs/{id}/events`).
 */
export async function dashboardRoutes(
  app: FastifyInstance,
  { onejob, waitSlots }: { onejob: Onejob; waitSlots: WaitSlots },
) {
  const assets = loadDashboardAssets();
  const send = (name: string) => {
    const asset = assets.get(name);
    if (!asset) throw new Error(`missing dashboard asset ${name}`);
    return asset;
  };

  app.get('/', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    const page = send('index.html');
    return reply.headers(SECURITY_HEADERS).type(page.type).send(page.body);
  });

  app.get<{ Params: { file: string } }>(
    '/ui/:file',
    { schema: { hide: true }, config: { public: true } },
    async (request, reply) => {
      const asset = request.params.file === 'index.html' ? undefined : assets.get(request.params.file);
      if (!asset) return reply.callNotFound();
      return reply.headers(SECURITY_HEADERS).type(asset.type).send(asset.body);
    },
  );

  // Browsers ask for /favicon.ico on their own; it is the same icon the page links to.
  app.get('/favicon.ico', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    const icon = send('favicon.svg');
    return reply.headers(SECURITY_HEADERS).type(icon.type).send(icon.body);
  });

  await app.register(dashboardDataRoutes, { onejob });
  await app.register(jobStreamRoutes, { onejob, waitSlots });
}
