// The engine's entry point; it is built in src/engine/ (createOnejob.ts composes it).
export { createOnejob } from './engine/createOnejob.js';
export type { Onejob, OnejobOptions, TxOption, TypedOnejob } from './engine/Onejob.js';
