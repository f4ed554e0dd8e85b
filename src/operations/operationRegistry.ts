import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Effect, OnejobConfig, OperationConfig } from '../config/types.js';

export interface InputProblem {
  path: string;
  message: string;
}

/** An operation as the engine sees it: limits resolved to defaults, input validation compiled. */
export interface Operation {
  name: string;
  kind: string;
  effect: Effect;
  providers: string[];
  attemptTimeoutMs: number;
  maxAttempts: number;
  hedgeAfterMs: number | undefined;
  /** Abort sibling calls still open once an attempt wins (pure operations only). */
  abortLosers: boolean;
  retry: { baseDelayMs: number; maxDelayMs: number };
  /** HTTP statuses of an `http` provider that end the job at once (empty: none). */
  permanentStatuses: readonly number[];
  config: OperationConfig | undefined;
  /** Problems with `input`, empty when it is acceptable. */
  checkInput(input: unknown): InputProblem[];
  /** The most output tokens a call is held for when its request sets none (compat models). */
  maxOutputTokens?: number;
  /** The prompt an input sends, when no template renders it (compat models: the request is the prompt). */
  promptOf?(input: Record<string, unknown>): { system?: string; user: string };
  /** The value the output contract checks, when it is not the result itself (compat models: the answer text). */
  contractValue?(result: unknown): unknown;
}

export const OPERATION_DEFAULTS = {
  effect: 'exclusive' as Effect,
  attemptTimeoutMs: 30_000,
  maxAttempts: 3,
  retry: { baseDelayMs: 500, maxDelayMs: 30_000 },
  // A losing hedge call is aborted once another attempt wins: its answer would be discarded.
  abortLosers: true,
};

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

export type InputCheck = (input: unknown, operation: OperationConfig) => InputProblem[];

/**
 * Extra input checks by operation kind, run after the input schema (for example, an
 * inference prompt template whose variables must all be present in the input). The
 * engine passes the providers' list (src/operations/operationInputChecks.ts) when it builds
 * the registry, so no check depends on which modules happened to be imported first.
 */
export type InputChecks = ReadonlyMap<string, InputCheck>;

const NO_INPUT_CHECKS: InputChecks = new Map();

export function operationFromConfig(
  name: string,
  config: OperationConfig,
  inputChecks: InputChecks = NO_INPUT_CHECKS,
  ajv = newAjv(),
): Operation {
  const extra = inputChecks.get(config.kind);
  let validate: ValidateFunction | undefined;
  if (config.inputSchema) validate = ajv.compile(config.inputSchema);
  return {
    name,
    kind: config.kind,
    effect: config.effect ?? OPERATION_DEFAULTS.effect,
    providers: config.providers,
    attemptTimeoutMs: config.attemptTimeoutMs ?? OPERATION_DEFAULTS.attemptTimeoutMs,
    maxAttempts: config.maxAttempts ?? OPERATION_DEFAULTS.maxAttempts,
    hedgeAfterMs: config.hedgeAfterMs,
    abortLosers: config.abortLosers ?? OPERATION_DEFAULTS.abortLosers,
    retry: {
      baseDelayMs: config.retry?.baseDelayMs ?? OPERATION_DEFAULTS.retry.baseDelayMs,
      maxDelayMs: config.retry?.maxDelayMs ?? OPERATION_DEFAULTS.retry.maxDelayMs,
    },
    permanentStatuses: config.permanentStatuses ?? [],
    config,
    checkInput(input) {
      if (validate && !validate(input)) {
        return (validate.errors ?? []).map((e) => ({
          path: `/input${e.instancePath}`,
          message:
            e.keyword === 'additionalProperties'
              ? `has unknown property "${String((e.params as { additionalProperty?: string }).additionalProperty)}"`
              : (e.message ?? 'is invalid'),
        }));
      }
      return extra ? extra(input, config) : [];
    },
  };
}

/** What a registry is built from, all of it known before the engine exists. */
export interface OperationRegistryParts {
  config: OnejobConfig;
  /** Extra input checks by operation kind, applied to the configured operations. */
  inputChecks: InputChecks;
  /** Operations built elsewhere: the SDK drop-in's models, the code operations. */
  more?: readonly Operation[];
}

/** All operations of a configuration, by name, and the ones built beside it. Fixed once built. */
export class OperationRegistry {
  private readonly byName = new Map<string, Operation>();

  constructor({ config, inputChecks, more = [] }: OperationRegistryParts) {
    const ajv = newAjv();
    for (const [name, op] of Object.entries(config.operations))
      this.byName.set(name, operationFromConfig(name, op, inputChecks, ajv));
    for (const operation of more) {
      if (this.byName.has(operation.name))
        throw new TypeError(
          `operation "${operation.name}" is defined twice (in code, or in code and in the config)`,
        );
      this.byName.set(operation.name, operation);
    }
  }

  get(name: string): Operation | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}
