// Prompt templates of inference operations: `{{name}}` (or `{{a.b}}` for nested input)
// is replaced by the job input's value. No logic, no escaping: what the template says
// plus the input is exactly what the model reads.
import type { InputProblem } from '../../operations/operationRegistry.js';

export interface PromptTemplate {
  system?: string | undefined;
  user: string;
}

export interface RenderedPrompt {
  system?: string | undefined;
  user: string;
}

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;

/** The variable paths a template uses, in order of first use. */
export function templateVariables(template: PromptTemplate): string[] {
  const seen = new Set<string>();
  for (const text of [template.system ?? '', template.user]) {
    for (const match of text.matchAll(VARIABLE)) seen.add(match[1]!);
  }
  return [...seen];
}

function lookup(input: unknown, path: string): unknown {
  let value: unknown = input;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Strings go in as they are; numbers and booleans as text; objects and arrays as JSON. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Problems that would stop the template from rendering: every variable must be present and not null. */
export function promptInputProblems(template: PromptTemplate, input: unknown): InputProblem[] {
  return templateVariables(template)
    .filter((path) => {
      const value = lookup(input, path);
      return value === undefined || value === null;
    })
    .map((path) => ({
      path: `/input/${path.split('.').join('/')}`,
      message: `is required by the prompt template ({{${path}}})`,
    }));
}

export class PromptRenderError extends Error {
  constructor(readonly problems: InputProblem[]) {
    super(
      `the prompt template cannot be rendered: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
    );
    this.name = 'PromptRenderError';
  }
}

function fill(text: string, input: unknown): string {
  return text.replace(VARIABLE, (_, path: string) => asText(lookup(input, path)));
}

export function renderPrompt(template: PromptTemplate, input: unknown): RenderedPrompt {
  const problems = promptInputProblems(template, input);
  if (problems.length) throw new PromptRenderError(problems);
  return {
    ...(template.system !== undefined ? { system: fill(template.system, input) } : {}),
    user: fill(template.user, input),
  };
}

/** The whole prompt as one text, the way the tokenizer checks see it. */
export function promptText(prompt: RenderedPrompt): string {
  return prompt.system === undefined ? prompt.user : `${prompt.system}\n\n${prompt.user}`;
}
