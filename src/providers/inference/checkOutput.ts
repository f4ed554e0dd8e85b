// The output contract of an inference operation: the model's text must be one JSON
// value (nothing around it), valid against `outputSchema`, and pass every rule.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { OperationConfig } from '../../config/types.js';
import { checkRules, type OutputRule } from './outputRules.js';

export interface ContractViolation {
  /** `json` (not parseable), `schema` (fails outputSchema) or `rule` (fails a business rule). */
  kind: 'json' | 'schema' | 'rule';
  path: string;
  message: string;
}

export type OutputCheck =
  | { ok: true; value: unknown }
  | {
      ok: false;
      violations: ContractViolation[] /** The parsed output, or the raw text when it did not parse. */;
      rejectedOutput: unknown;
    };

const ajv = new Ajv({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv) => void)(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Checks an already parsed value against the operation's schema and rules. */
export function checkOutputValue(
  config: Pick<OperationConfig, 'outputSchema' | 'rules'>,
  value: unknown,
): OutputCheck {
  const violations: ContractViolation[] = [];
  if (config.outputSchema) {
    const validate = validatorFor(config.outputSchema);
    if (!validate(value)) {
      for (const e of validate.errors ?? []) {
        const params = e.params as { additionalProperty?: string; missingProperty?: string };
        if (e.keyword === 'additionalProperties') {
          violations.push({
            kind: 'schema',
            path: `${e.instancePath}/${params.additionalProperty}`,
            message: 'is not allowed by the output schema',
          });
        } else if (e.keyword === 'required') {
          violations.push({
            kind: 'schema',
            path: `${e.instancePath}/${params.missingProperty}`,
            message: 'is required by the output schema',
          });
        } else {
          violations.push({ kind: 'schema', path: e.instancePath, message: e.message ?? 'is invalid' });
        }
      }
    }
  }
  // Rules run even when the schema failed, so one report lists everything wrong.
  for (const v of checkRules((config.rules ?? []) as OutputRule[], value)) {
    violations.push({ kind: 'rule', path: v.path, message: v.message });
  }
  return violations.length ? { ok: false, violations, rejectedOutput: value } : { ok: true, value };
}

/** Parses the model's text strictly (no code fences, no prose around it) and checks it. */
export function checkOutput(
  config: Pick<OperationConfig, 'outputSchema' | 'rules'>,
  text: string,
): OutputCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      violations: [{ kind: 'json', path: '', message: `is not JSON: ${(error as Error).message}` }],
      rejectedOutput: text,
    };
  }
  return checkOutputValue(config, value);
}

/** One line naming what was wrong, for the attempt's error message. */
export function describeViolations(violations: readonly ContractViolation[]): string {
  return violations.map((v) => `${v.path || '/'} ${v.message}`).join('; ');
}
