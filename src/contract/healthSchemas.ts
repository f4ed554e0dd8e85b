// The liveness and readiness answers (docs/operations.md).
import type { FromSchema } from 'json-schema-to-ts';

export const healthSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { const: 'ok' } },
  additionalProperties: false,
} as const;

export const readinessSchema = {
  type: 'object',
  required: ['status', 'migration'],
  properties: {
    status: { const: 'ready' },
    migration: { type: 'integer', description: 'The latest migration applied' },
  },
  additionalProperties: false,
} as const;

/** What GET /healthz answers: the process is up. */
export type Health = FromSchema<typeof healthSchema>;
/** What GET /readyz answers: the database is reachable and migrated to `migration`. */
export type Readiness = FromSchema<typeof readinessSchema>;
