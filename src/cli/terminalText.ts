// Text the CLI prints comes partly from tenants (a ledger reference, an idempotency key, a
// provider's error). A terminal obeys the control characters in it: ESC [2J clears the
// screen, ESC ]0; retitles the window. Every control character of C0, DEL and C1 is
// printed as a visible `\xNN` instead, so what a tenant wrote is shown, never obeyed.

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// The same without the newline, for text whose lines the CLI laid out itself.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes.
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

const visible = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** `text` with every control character (newline included) shown as `\xNN`: for one-line values and table cells. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, visible);
}

/** `text` with every control character but the newline shown as `\xNN`: for whole outputs. */
export function safeLines(text: string): string {
  return text.replace(CONTROL_BUT_NEWLINE, visible);
}

/** Writes text output to stdout, its control characters made visible. */
export function printText(text: string, done?: () => void): void {
  process.stdout.write(safeLines(text), done);
}

/**
 * JSON for a terminal: JSON.stringify escapes C0 but writes DEL and C1 as they are, so
 * those become `\u00NN` too (still the same JSON).
 */
export function terminalJson(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? 'null').replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
