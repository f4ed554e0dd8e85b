// Business rules on an inference result, beyond what its JSON Schema says. Each rule
// names one value by JSON pointer and states constraints on it; a result passes when
// every rule holds. Deliberately small: no expressions, no cross-field logic. Their shape
// is src/config/outputRuleSchema.ts; ruleProblems adds what a schema cannot say.

export interface OutputRule {
  /** JSON pointer (RFC 6901) into the parsed output, e.g. `/summary`, `/items/0/score`. */
  path: string;
  /** The value must exist. Without it, a rule on an absent value is skipped. */
  required?: boolean;
  /** Strings: length in characters (code points). Arrays: number of items. */
  minLength?: number;
  maxLength?: number;
  /** Numbers: inclusive bounds. */
  min?: number;
  max?: number;
  /** The value must equal (deep, JSON) one of these / none of these. */
  in?: unknown[];
  notIn?: unknown[];
  /** Strings: must / must not match this regular expression (JavaScript syntax, unanchored). */
  matches?: string;
  notMatches?: string;
  /** Flags for `matches` / `notMatches`, e.g. `i`. */
  flags?: string;
  /** Replaces the generated message in violation reports. */
  message?: string;
}

export interface RuleViolation {
  path: string;
  rule: string;
  message: string;
}

/** Resolves a JSON pointer; `found: false` when any step is missing. */
export function resolvePointer(doc: unknown, pointer: string): { found: boolean; value?: unknown } {
  if (pointer === '') return { found: true, value: doc };
  let value: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(value)) {
      if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) >= value.length) return { found: false };
      value = value[Number(key)];
    } else if (typeof value === 'object' && value !== null && Object.hasOwn(value, key)) {
      value = (value as Record<string, unknown>)[key];
    } else {
      return { found: false };
    }
  }
  return { found: true, value };
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(b, k) && sameJson((a as never)[k], (b as never)[k]))
  );
}

const show = (v: unknown) => JSON.stringify(v);

/** Checks one rule against the output; returns its violations (empty when it holds). */
export function checkRule(rule: OutputRule, output: unknown): RuleViolation[] {
  const { found, value } = resolvePointer(output, rule.path);
  const out: RuleViolation[] = [];
  const fail = (name: string, message: string) =>
    out.push({ path: rule.path, rule: name, message: rule.message ?? message });
  if (!found) {
    if (rule.required) fail('required', 'is missing');
    return out;
  }
  if (rule.minLength !== undefined || rule.maxLength !== undefined) {
    const length =
      typeof value === 'string' ? [...value].length : Array.isArray(value) ? value.length : undefined;
    if (length === undefined)
      fail('minLength' in rule ? 'minLength' : 'maxLength', 'is not a string or an array');
    else {
      if (rule.minLength !== undefined && length < rule.minLength)
        fail('minLength', `has length ${length}, below ${rule.minLength}`);
      if (rule.maxLength !== undefined && length > rule.maxLength)
        fail('maxLength', `has length ${length}, above ${rule.maxLength}`);
    }
  }
  if (rule.min !== undefined || rule.max !== undefined) {
    if (typeof value !== 'number') fail(rule.min !== undefined ? 'min' : 'max', 'is not a number');
    else {
      if (rule.min !== undefined && value < rule.min) fail('min', `is ${value}, below ${rule.min}`);
      if (rule.max !== undefined && value > rule.max) fail('max', `is ${value}, above ${rule.max}`);
    }
  }
  if (rule.in && !rule.in.some((v) => sameJson(v, value)))
    fail('in', `is ${show(value)}, not one of ${show(rule.in)}`);
  if (rule.notIn?.some((v) => sameJson(v, value))) fail('notIn', `is ${show(value)}, which is not allowed`);
  for (const key of ['matches', 'notMatches'] as const) {
    const pattern = rule[key];
    if (pattern === undefined) continue;
    if (typeof value !== 'string') {
      fail(key, 'is not a string');
      continue;
    }
    const hit = new RegExp(pattern, rule.flags ?? 'u').test(value);
    if (key === 'matches' && !hit) fail(key, `does not match /${pattern}/`);
    if (key === 'notMatches' && hit) fail(key, `matches /${pattern}/, which is not allowed`);
  }
  return out;
}

export function checkRules(rules: readonly OutputRule[], output: unknown): RuleViolation[] {
  return rules.flatMap((rule) => checkRule(rule, output));
}

/** Compiles every pattern once, so a bad regular expression is a config error, not a runtime one. */
export function ruleProblems(rules: readonly OutputRule[]): { index: number; message: string }[] {
  const problems: { index: number; message: string }[] = [];
  rules.forEach((rule, index) => {
    for (const key of ['matches', 'notMatches'] as const) {
      const pattern = rule[key];
      if (pattern === undefined) continue;
      try {
        new RegExp(pattern, rule.flags ?? 'u');
      } catch (error) {
        problems.push({
          index,
          message: `${key} is not a valid regular expression: ${(error as Error).message}`,
        });
      }
    }
  });
  return problems;
}
