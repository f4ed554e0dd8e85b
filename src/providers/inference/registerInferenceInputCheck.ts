// Importing this module makes a missing prompt variable an input error at job creation
// (422 input_invalid), not a failed attempt later.
import { inputChecksByKind } from '../../operations/operationRegistry.js';
import { promptInputProblems } from './renderPrompt.js';

inputChecksByKind.set('inference.chat', (input, operation) =>
  operation.prompt ? promptInputProblems(operation.prompt, input) : [],
);
