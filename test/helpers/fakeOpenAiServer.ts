// A fake OpenAI chat completions server on loopback: POST /v1/chat/completions answers
// in the real wire format, scripted per request. `baseUrl` is what a provider config uses.
import { type FakeServer, startFakeLlmServer } from './fakeLlmServer.js';

export { type FakeReply, Gate, type RecordedRequest } from './fakeLlmServer.js';

export interface FakeOpenAiServer extends FakeServer {
  /** `http://127.0.0.1:PORT/v1`, the provider's `baseUrl`. */
  baseUrl: string;
}

export async function startFakeOpenAiServer(): Promise<FakeOpenAiServer> {
  let n = 0;
  const server = await startFakeLlmServer('/v1/chat/completions', (reply, req) => {
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
  });
  return Object.assign(server, { baseUrl: `${server.url}/v1` });
}
