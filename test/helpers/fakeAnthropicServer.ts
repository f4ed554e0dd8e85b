// A fake Anthropic messages server on loopback: POST /v1/messages answers in the real
// wire format, scripted per request. `baseUrl` is what a provider config uses.
import { type FakeServer, startFakeLlmServer, textDeltas } from './fakeLlmServer.js';

export { type FakeReply, Gate, type RecordedRequest } from './fakeLlmServer.js';

export interface FakeAnthropicServer extends FakeServer {
  /** `http://127.0.0.1:PORT`, the provider's `baseUrl`. */
  baseUrl: string;
}

export async function startFakeAnthropicServer(): Promise<FakeAnthropicServer> {
  let n = 0;
  const server = await startFakeLlmServer(
    '/v1/messages',
    (reply, req) => ({
      id: `msg_${++n}`,
      type: 'message',
      role: 'assistant',
      model: req.body.model,
      content: [{ type: 'text', text: reply.text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: reply.inputTokens ?? 15, output_tokens: reply.outputTokens ?? 9 },
    }),
    (reply, req) => {
      const event = (type: string, data: Record<string, unknown>) =>
        `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
      const deltas = textDeltas(reply.text).map((text) =>
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
      );
      return {
        events: [
          event('message_start', {
            message: {
              id: `msg_${++n}`,
              type: 'message',
              role: 'assistant',
              model: req.body.model,
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: reply.inputTokens ?? 15, output_tokens: 1 },
            },
          }),
          event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
          ...deltas,
          event('content_block_stop', { index: 0 }),
          event('message_delta', {
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: reply.outputTokens ?? 9 },
          }),
          event('message_stop', {}),
        ],
        half: 2 + Math.ceil(deltas.length / 2),
      };
    },
  );
  return Object.assign(server, { baseUrl: server.url });
}
