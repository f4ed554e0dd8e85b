// The compat wire's named types (src/compat/openai/openaiTypes.ts,
// src/compat/anthropic/anthropicTypes.ts) against the SDKs' own, at compile time: what
// onejob answers is what each SDK reads, what it sends a provider is a request the SDK
// could send, what it reads from a provider is no more than the SDK's answer holds, and
// the parameters it carries have the SDK's types both ways. `npm run typecheck` compiles
// this file; a drift in either side fails it there.
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AnthropicChatRequest,
  AnthropicError,
  AnthropicErrorBody,
  AnthropicEventReply,
  AnthropicMessage,
  AnthropicMessageParam,
  AnthropicReply,
  AnthropicStopReason,
  AnthropicStreamEvent,
  AnthropicTextBlock,
  AnthropicTextBlockParam,
  AnthropicUpstreamRequest,
  AnthropicUsage,
} from '../../src/compat/anthropic/anthropicTypes.js';
import type { ResponseFormat } from '../../src/compat/chatRequest.js';
import type {
  OpenAiChatCompletion,
  OpenAiChatRequest,
  OpenAiChunk,
  OpenAiChunkReply,
  OpenAiError,
  OpenAiReply,
  OpenAiUpstreamRequest,
} from '../../src/compat/openai/openaiTypes.js';

type ChatParams = OpenAI.ChatCompletionCreateParamsNonStreaming;
/** The scalar parameters the drop-in carries as they are (messages, response_format and stream are checked apart). */
type OpenAiScalars = Exclude<keyof OpenAiChatRequest, 'messages' | 'response_format' | 'stream'>;
/**
 * The same for Anthropic. The SDK no longer sends temperature or top_p; earlier versions
 * did, and other clients do, so the drop-in still carries them.
 */
type AnthropicScalars = Exclude<keyof AnthropicChatRequest, 'messages' | 'system' | 'temperature' | 'top_p'>;
type EventOf<T extends AnthropicStreamEvent['type']> = Extract<AnthropicStreamEvent, { type: T }>;
type SdkEventOf<T extends Anthropic.RawMessageStreamEvent['type']> = Extract<
  Anthropic.RawMessageStreamEvent,
  { type: T }
>;

describe('the OpenAI wire', () => {
  it('a completion, a chunk and an error body are what the openai SDK reads', () => {
    expectTypeOf<OpenAiChatCompletion>().toExtend<OpenAI.ChatCompletion>();
    expectTypeOf<OpenAiChunk>().toExtend<OpenAI.ChatCompletionChunk>();
    expectTypeOf<OpenAiError>().toExtend<OpenAI.ErrorObject>();
  });

  it('the body a provider is sent is a request the openai SDK could send', () => {
    expectTypeOf<Omit<OpenAiUpstreamRequest, 'response_format' | 'stream'>>().toExtend<ChatParams>();
    expectTypeOf<
      Omit<OpenAiUpstreamRequest, 'response_format'> & { stream: true }
    >().toExtend<OpenAI.ChatCompletionCreateParamsStreaming>();
    // The response format is kept as the client sent it: the SDK's kinds, its schema read as a plain object.
    expectTypeOf<NonNullable<ChatParams['response_format']>['type']>().toEqualTypeOf<
      ResponseFormat['type']
    >();
  });

  it("a provider's answer, whole or chunk by chunk, is read no further than the SDK's types go", () => {
    expectTypeOf<OpenAI.ChatCompletion>().toExtend<OpenAiReply>();
    expectTypeOf<OpenAI.ChatCompletionChunk>().toExtend<OpenAiChunkReply>();
  });

  it('the parameters the drop-in carries have the SDK types, both ways', () => {
    expectTypeOf<Pick<OpenAiChatRequest, OpenAiScalars>>().toExtend<Pick<ChatParams, OpenAiScalars>>();
    expectTypeOf<Pick<ChatParams, Exclude<OpenAiScalars, 'model' | 'stream_options'>>>().toExtend<
      Pick<OpenAiChatRequest, Exclude<OpenAiScalars, 'model' | 'stream_options'>>
    >();
    expectTypeOf<Pick<ChatParams, 'stream_options'>>().toExtend<Pick<OpenAiChatRequest, 'stream_options'>>();
    expectTypeOf<OpenAI.ChatCompletionCreateParams['stream']>().toEqualTypeOf<OpenAiChatRequest['stream']>();
    // The SDK names its models; any string is a model here, its own names included.
    expectTypeOf<ChatParams['model']>().toExtend<string>();
    // Every message the drop-in takes is one the SDK sends; tool and function messages it refuses.
    expectTypeOf<OpenAiChatRequest['messages'][number]>().toExtend<OpenAI.ChatCompletionMessageParam>();
    expectTypeOf<OpenAI.ChatCompletionSystemMessageParam>().toExtend<OpenAiChatRequest['messages'][number]>();
    expectTypeOf<OpenAI.ChatCompletionDeveloperMessageParam>().toExtend<
      OpenAiChatRequest['messages'][number]
    >();
  });
});

describe('the Anthropic wire', () => {
  // The SDK's Message and Usage name fields onejob does not send (container, diagnostics,
  // cache and server-tool counts, citations); the SDK reads their absence as none. Each
  // field onejob does send has the SDK's type.
  it('a message, its events and an error body are what @anthropic-ai/sdk reads, field by field', () => {
    expectTypeOf<Omit<AnthropicMessage, 'content' | 'usage' | 'model'>>().toExtend<
      Pick<Anthropic.Message, Exclude<keyof AnthropicMessage, 'content' | 'usage' | 'model'>>
    >();
    expectTypeOf<AnthropicMessage['model']>().toExtend<Anthropic.Model>();
    expectTypeOf<AnthropicTextBlock>().toExtend<Omit<Anthropic.TextBlock, 'citations'>>();
    expectTypeOf<AnthropicUsage>().toExtend<Pick<Anthropic.Usage, 'input_tokens' | 'output_tokens'>>();
    expectTypeOf<AnthropicUsage>().toExtend<
      Pick<Anthropic.MessageDeltaUsage, 'input_tokens' | 'output_tokens'>
    >();
    expectTypeOf<AnthropicStopReason>().toExtend<Anthropic.StopReason>();
    expectTypeOf<AnthropicStreamEvent['type']>().toEqualTypeOf<Anthropic.RawMessageStreamEvent['type']>();
    expectTypeOf<EventOf<'content_block_delta'>>().toExtend<SdkEventOf<'content_block_delta'>>();
    expectTypeOf<EventOf<'content_block_stop'>>().toExtend<SdkEventOf<'content_block_stop'>>();
    expectTypeOf<EventOf<'message_stop'>>().toExtend<SdkEventOf<'message_stop'>>();
    expectTypeOf<EventOf<'message_delta'>['delta']>().toExtend<
      Pick<SdkEventOf<'message_delta'>['delta'], 'stop_reason' | 'stop_sequence'>
    >();
    expectTypeOf<AnthropicErrorBody['type']>().toEqualTypeOf<Anthropic.ErrorResponse['type']>();
    expectTypeOf<Exclude<AnthropicError['type'], 'request_too_large'>>().toExtend<
      Anthropic.ErrorObject['type']
    >();
  });

  it('the body a provider is sent is a request the SDK could send', () => {
    expectTypeOf<AnthropicUpstreamRequest>().toExtend<Anthropic.MessageCreateParams>();
  });

  it("a provider's answer, whole or event by event, is read no further than the SDK's types go", () => {
    expectTypeOf<Anthropic.Message>().toExtend<AnthropicReply>();
    expectTypeOf<Anthropic.RawMessageStreamEvent>().toExtend<AnthropicEventReply>();
  });

  it('the parameters the drop-in carries have the SDK types, both ways', () => {
    type Params = Anthropic.MessageCreateParamsNonStreaming;
    expectTypeOf<
      Pick<AnthropicChatRequest, Exclude<AnthropicScalars, 'model' | 'stream' | 'stop_sequences'>>
    >().toExtend<Pick<Params, Exclude<AnthropicScalars, 'model' | 'stream' | 'stop_sequences'>>>();
    expectTypeOf<Pick<Params, AnthropicScalars>>().toExtend<Pick<AnthropicChatRequest, AnthropicScalars>>();
    expectTypeOf<AnthropicChatRequest['model']>().toExtend<Params['model']>();
    // Blocks are read past their cache_control, which the SDK types and onejob does not.
    expectTypeOf<Omit<AnthropicTextBlockParam, 'cache_control'>>().toExtend<Anthropic.TextBlockParam>();
    expectTypeOf<{
      role: AnthropicMessageParam['role'];
      content: string;
    }>().toExtend<Anthropic.MessageParam>();
    expectTypeOf<NonNullable<Params['system']>>().toExtend<NonNullable<AnthropicChatRequest['system']>>();
  });
});
