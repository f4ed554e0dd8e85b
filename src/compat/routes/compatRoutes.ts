// The SDK drop-in routes: `/compat/openai/v1` for the openai SDK and `/compat/anthropic`
// for @anthropic-ai/sdk (docs/compat.md). Each prefix answers in its SDK's wire format,
// errors included; owner auth, limits and input checks are the server's shared hooks.
import type { FastifyInstance } from 'fastify';
import type { Onejob } from '../../engine/Onejob.js';
import type { WaitSlots } from '../../http/limits/WaitSlots.js';
import { anthropicWire as anthropic } from '../anthropic/anthropicWire.js';
import { compatModelOf, compatSettings } from '../compatModels.js';
import { openAiWire as openai } from '../openai/openaiWire.js';
import { type CompatDeps, serveCompletion } from './serveCompletion.js';
import { wireErrors } from './wireErrors.js';

export interface CompatRoutesOptions {
  onejob: Onejob;
  waitSlots: WaitSlots;
}

/** Chat requests carry whole conversations: more room than the API's 1 MiB. */
export const COMPAT_BODY_LIMIT = 8 * 1024 * 1024;

const passthrough = { type: 'object', additionalProperties: true } as const;

export async function compatRoutes(app: FastifyInstance, { onejob, waitSlots }: CompatRoutesOptions) {
  const deps: CompatDeps = { onejob, waitSlots, settings: compatSettings(onejob.config.compat) };
  const models = () => onejob.operations.names().flatMap((name) => compatModelOf(name) ?? []);

  await app.register(async (scope) => {
    scope.addHook('onSend', wireErrors(openai));
    scope.post(
      '/compat/openai/v1/chat/completions',
      {
        bodyLimit: COMPAT_BODY_LIMIT,
        schema: {
          summary: 'OpenAI Chat Completions, one job per Idempotency-Key (docs/compat.md)',
          tags: ['compat'],
          body: passthrough,
        },
      },
      (request, reply) => serveCompletion(deps, openai, request, reply),
    );
    scope.get(
      '/compat/openai/v1/models',
      { schema: { summary: 'The models of compat.models, as OpenAI lists models', tags: ['compat'] } },
      async () => ({
        object: 'list',
        data: models().map((id) => ({ id, object: 'model', created: 0, owned_by: 'onejob' })),
      }),
    );
  });

  await app.register(async (scope) => {
    scope.addHook('onSend', wireErrors(anthropic));
    scope.post(
      '/compat/anthropic/v1/messages',
      {
        bodyLimit: COMPAT_BODY_LIMIT,
        config: { apiKeyHeader: true },
        schema: {
          summary: 'Anthropic Messages, one job per Idempotency-Key (docs/compat.md)',
          tags: ['compat'],
          body: passthrough,
        },
      },
      (request, reply) => serveCompletion(deps, anthropic, request, reply),
    );
    scope.get(
      '/compat/anthropic/v1/models',
      {
        config: { apiKeyHeader: true },
        schema: { summary: 'The models of compat.models, as Anthropic lists models', tags: ['compat'] },
      },
      async () => {
        const ids = models();
        return {
          data: ids.map((id) => ({
            type: 'model',
            id,
            display_name: id,
            created_at: '1970-01-01T00:00:00Z',
          })),
          has_more: false,
          first_id: ids[0] ?? null,
          last_id: ids.at(-1) ?? null,
        };
      },
    );
  });
}
