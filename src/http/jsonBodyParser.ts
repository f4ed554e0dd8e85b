// Fastify's JSON body parser (prototype-poisoning checks included), with a refusal that
// says where the body stops being JSON: Fastify's own error drops the position.
import type { FastifyInstance } from 'fastify';
import { invalidJson } from '../errors/invalidJson.js';

export function useJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    parse(request, text, (error, value) => {
      if ((error as { code?: string } | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
        return done(invalidJson(text), undefined);
      done(error, value);
    });
  });
}
