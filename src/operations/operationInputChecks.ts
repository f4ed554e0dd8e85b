// The input checks each operation kind adds to its input schema, as one explicit list the
// engine hands to its operation registry: a missing prompt variable is an input error at
// job creation (422 input_invalid), not a failed attempt later.

import { promptInputProblems } from '../providers/inference/renderPrompt.js';
import type { InputChecks } from './operationRegistry.js';

export const operationInputChecks: InputChecks = new Map([
  [
    'inference.chat',
    (input, operation) => (operation.prompt ? promptInputProblems(operation.prompt, input) : []),
  ],
]);
