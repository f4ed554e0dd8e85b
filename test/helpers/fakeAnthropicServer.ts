// A fake Anthropic messages server on loopback: POST /v1/messages answers in the real
// wire format, scripted per request. `baseUrl` is what a provider config uses.
import { type FakeServer, startFakeLlmServer } from './fakeLlmServer.js';

export { type FakeReply, Gate, type RecordedRequest } from './fakeLlmServer.js';

export interface FakeAnthropicServer extends FakeServer {
  /** `http://127.0.0.1:PORT`, the provider's `baseUrl`. */
  baseUrl: string;
}

export async function startFakeAnthropicServer(): Promise<FakeAnthropicServer> {
  let n = 0;
  const server = await startFakeLlmServer('/v1/messages', (reply, req) => ({
    id: `msg_${++n}`,
    type: 'message',
    role: 'assistant',
    model: req.body.model,
    content: [{ type: 'text', text: reply.text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: reply.inputTokens ?? 15, output_tokens: reply.outputTokens ?? 9 },
  }));
  return Object.assign(server, { baseUrl: server.url });
}
