// What the budget routes are asked (contract section 8): the owner and currency in the
// path, and what a budget is set to.
import type { FromSchema } from 'json-schema-to-ts';

/** `{ownerId}/{currency}` in the path of `/v1/budgets`. */
export const budgetParamsSchema = {
  type: 'object',
  required: ['ownerId', 'currency'],
  properties: { ownerId: { type: 'string' }, currency: { type: 'string' } },
  additionalProperties: false,
} as const;

/** The body of `PUT /v1/budgets/{ownerId}/{currency}`. */
export const setBudgetBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['limitMicros', 'period'],
  properties: {
    limitMicros: {
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Millionths of the currency unit; 0 refuses every priced call',
    },
    period: { enum: ['total', 'day', 'month'], description: 'UTC periods; total never resets' },
  },
} as const;

/** The owner and currency a budget is for. */
export type BudgetParams = FromSchema<typeof budgetParamsSchema>;
/** What a budget is set to. */
export type SetBudgetBody = FromSchema<typeof setBudgetBodySchema>;
