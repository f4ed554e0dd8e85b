// The shape of one output rule (src/providers/inference/outputRules.ts applies them), here
// because the config schema embeds it: a rule with an unknown key refuses to start.

/** JSON Schema of one output rule. */
export const outputRuleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  minProperties: 2,
  properties: {
    path: { type: 'string', pattern: '^(/.*)?$' },
    required: { type: 'boolean' },
    minLength: { type: 'integer', minimum: 0 },
    maxLength: { type: 'integer', minimum: 0 },
    min: { type: 'number' },
    max: { type: 'number' },
    in: { type: 'array', minItems: 1 },
    notIn: { type: 'array', minItems: 1 },
    matches: { type: 'string' },
    notMatches: { type: 'string' },
    flags: { type: 'string', pattern: '^[imsu]*$' },
    message: { type: 'string' },
  },
} as const;
