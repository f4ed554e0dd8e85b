// Types of build.mjs, for the test of its up-to-date check.
export const BUILD_INPUTS: readonly string[];
export const STAMP: string;
export function inputsHash(base?: string, inputs?: readonly string[]): string;
export function buildIsCurrent(base?: string, inputs?: readonly string[]): boolean;
