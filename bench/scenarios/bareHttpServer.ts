// A Fastify server that answers POST /v1/jobs with a fixed reply and does nothing else: no
// authentication, no database, no log. Run by bareHttp.ts in a process of its own, like
// `onejob serve`, it is the rate HTTP alone reaches on this machine with the bench's load
// client: the ceiling of every HTTP scenario, the replay's included.
import Fastify from 'fastify';

const body = process.env.BARE_HTTP_BODY ?? '{}';
const app = Fastify({ logger: false });
app.post('/v1/jobs', async (_request, reply) => {
  reply.code(202).header('idempotent-replayed', 'true').type('application/json; charset=utf-8');
  return body;
});
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${address}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
