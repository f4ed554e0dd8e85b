// A fake OpenAI chat completions server on loopback: POST /v1/chat/completions answers
// in the real wire format, scripted per request. `baseUrl` is what a provider config uses.
import { type FakeServer, startFakeLlmServer, textDeltas } from './fakeLlmServer.js';

export { type FakeReply, Gate, type RecordedRequest } from './fakeLlmServer.js';

export interface FakeOpenAiServer extends FakeServer {
  /** `http://127.0.0.1:PORT/v1`, the provider's `baseUrl`. */
  baseUrl: string;
}

export async function startFakeOpenAiServer(): Promise<FakeOpenAiServer> {
  let n = 0;
  const server = await startFakeLlmServer(
    '/v1/chat/completions',
    (reply, req) => {
      const input = reply.inputTokens ?? 12;
      const output = reply.outputTokens ?? 7;
      return {
        id: `chatcmpl-${++n}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: req.body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: reply.text, refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      };
    },
    (reply, req) => {
      const id = `chatcmpl-${++n}`;
      const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: req.body.model, choices, ...extra })}\n\n`;
      const deltas = textDeltas(reply.text).map((content) =>
        chunk([{ index: 0, delta: { content }, finish_reason: null }]),
      );
      const input = reply.inputTokens ?? 12;
      const output = reply.outputTokens ?? 7;
      return {
        events: [
          chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
          ...deltas,
          chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
          chunk([], {
            usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
          }),
          'data: [DONE]\n\n',
        ],
        half: 1 + Math.ceil(deltas.length / 2),
      };
    },
  );
  return Object.assign(server, { baseUrl: `${server.url}/v1` });
}
