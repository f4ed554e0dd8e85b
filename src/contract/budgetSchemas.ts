// Budgets on the wire (contract section 8): one owner's limit per currency and UTC period.
import type { FromSchema } from 'json-schema-to-ts';
import { itemsOf } from './wireParts.js';

export const budgetSchema = {
  type: 'object',
  description:
    "An owner's budget in one currency and its current UTC period: spentMicros + heldMicros never passes limitMicros.",
  required: [
    'ownerId',
    'currency',
    'limitMicros',
    'period',
    'periodStart',
    'spentMicros',
    'heldMicros',
    'availableMicros',
  ],
  properties: {
    ownerId: { type: 'string' },
    currency: { type: 'string', description: 'Three capital letters, such as USD' },
    limitMicros: { type: 'integer', description: 'Millionths of the currency unit' },
    period: { enum: ['total', 'day', 'month'] },
    periodStart: {
      type: 'string',
      format: 'date-time',
      description: 'Start of the current period, UTC (1970-01-01 for total)',
    },
    spentMicros: { type: 'integer', description: 'Posted in this period' },
    heldMicros: { type: 'integer', description: 'Held by calls in flight, taken in this period' },
    availableMicros: {
      type: 'integer',
      minimum: 0,
      description: 'limitMicros - spentMicros - heldMicros, never below 0',
    },
  },
  additionalProperties: false,
} as const;

export const budgetListSchema = {
  ...itemsOf(budgetSchema),
  description: "The calling owner's budgets, one per currency.",
} as const;

/** An owner's budget in one currency and its current period. */
export type Budget = FromSchema<typeof budgetSchema>;
/** The calling owner's budgets. */
export type BudgetList = FromSchema<typeof budgetListSchema>;
