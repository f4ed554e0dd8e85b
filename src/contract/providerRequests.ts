// What the provider routes are asked (docs/providers.md): which provider to verify, and
// against which operation's contract.
import type { FromSchema } from 'json-schema-to-ts';

/** `{name}` in the path of `POST /v1/providers/{name}/verify`. */
export const providerParamsSchema = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', maxLength: 64 } },
  additionalProperties: false,
} as const;

/** The body of `POST /v1/providers/{name}/verify`. */
export const verifyProviderBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['operation'],
  properties: { operation: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

/** What a verification of a provider is sent. */
export type VerifyProviderBody = FromSchema<typeof verifyProviderBodySchema>;
