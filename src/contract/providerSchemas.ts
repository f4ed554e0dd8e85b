// Providers and their contract verifications on the wire (docs/providers.md).
import type { FromSchema } from 'json-schema-to-ts';
import { itemsOf, timestamp } from './wireParts.js';

export const providerOperationSchema = {
  type: 'object',
  description: "One provider's role and verification status for one operation it serves.",
  required: ['operation', 'role', 'status', 'failoverAllowed', 'contractHash', 'lastVerification'],
  properties: {
    operation: { type: 'string' },
    role: { enum: ['primary', 'fallback'], description: 'The primary is the first listed' },
    status: {
      enum: ['verified', 'stale', 'failed', 'never'],
      description:
        'verified: the latest verification under the current contract passed; stale: only earlier contracts were verified',
    },
    failoverAllowed: {
      type: 'boolean',
      description: 'May the engine fail over (or hedge) to this provider for this operation now?',
    },
    contractHash: { type: 'string' },
    lastVerification: {
      type: ['object', 'null'],
      required: ['id', 'passed', 'contractHash', 'finishedAt'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        passed: { type: 'boolean' },
        contractHash: { type: 'string' },
        finishedAt: timestamp,
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

export const providerStatusSchema = {
  type: 'object',
  description: 'A configured provider and its status for every operation it serves.',
  required: ['name', 'kind', 'model', 'operations', 'maxConcurrency', 'inFlight', 'pausedUntil'],
  properties: {
    name: { type: 'string' },
    kind: { type: 'string' },
    model: { type: ['string', 'null'] },
    operations: { type: 'array', items: providerOperationSchema },
    maxConcurrency: {
      type: ['integer', 'null'],
      description: 'Calls in flight at once across every worker process; null: no cap',
    },
    inFlight: {
      type: ['integer', 'null'],
      description:
        'Slots of a capped provider held by attempts now, across every process; null: the provider has no cap',
    },
    pausedUntil: {
      type: ['string', 'null'],
      format: 'date-time',
      description:
        'Paused after a 429 or 503 with Retry-After: no worker calls it before this instant; null: not paused',
    },
  },
  additionalProperties: false,
} as const;

export const providerListSchema = itemsOf(providerStatusSchema);

export const checkResultSchema = {
  type: 'object',
  required: ['name', 'status', 'reason'],
  properties: {
    name: { enum: ['output_contract', 'tokenizer', 'round_trip'] },
    status: {
      enum: ['passed', 'failed', 'skipped', 'waived', 'not_applicable'],
      description: 'skipped: an earlier check made this one meaningless; counts as not passed',
    },
    reason: { type: 'string' },
    evidence: { type: 'object', additionalProperties: true },
  },
  additionalProperties: false,
} as const;

export const fixtureReportSchema = {
  type: 'object',
  description: 'The checks of one contract fixture.',
  required: ['index', 'input', 'passed', 'checks'],
  properties: {
    index: { type: 'integer' },
    input: { type: 'object', additionalProperties: true },
    passed: { type: 'boolean' },
    checks: { type: 'array', items: checkResultSchema },
  },
  additionalProperties: false,
} as const;

export const verificationReportSchema = {
  type: 'object',
  description: 'A contract verification: every check of every fixture, with its evidence.',
  required: [
    'id',
    'provider',
    'operation',
    'model',
    'contractHash',
    'temperature',
    'passed',
    'status',
    'summary',
    'fixtures',
    'startedAt',
    'finishedAt',
  ],
  properties: {
    id: { type: 'string', format: 'uuid' },
    provider: { type: 'string' },
    operation: { type: 'string' },
    model: { type: ['string', 'null'] },
    contractHash: { type: 'string' },
    temperature: { type: 'number' },
    passed: { type: 'boolean' },
    status: { enum: ['verified', 'failed'] },
    summary: { type: 'string' },
    fixtures: { type: 'array', items: fixtureReportSchema },
    startedAt: timestamp,
    finishedAt: timestamp,
  },
  additionalProperties: false,
} as const;

/** One provider's role and verification status for one operation it serves. */
export type ProviderOperationStatus = FromSchema<typeof providerOperationSchema>;
/** verified: the latest verification under the current contract passed; failed: it did not; stale: only earlier contracts were verified; never: none at all. */
export type VerificationStatus = ProviderOperationStatus['status'];
/** A configured provider and its status for every operation it serves. */
export type ProviderStatus = FromSchema<typeof providerStatusSchema>;
/** What GET /v1/providers answers: each provider with its status per operation. */
export type ProviderList = FromSchema<typeof providerListSchema>;
/** One check of one fixture in a verification report, with its evidence. */
export type CheckResult = FromSchema<typeof checkResultSchema>;
/** The checks a contract verification runs on each fixture. */
export type CheckName = CheckResult['name'];
/** The checks of one contract fixture in a verification report. */
export type FixtureReport = FromSchema<typeof fixtureReportSchema>;
/** The result of one verification run of a provider against an operation's contract. */
export type VerificationReport = FromSchema<typeof verificationReportSchema>;
