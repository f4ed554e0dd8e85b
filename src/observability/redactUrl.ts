// Publisher and provider URLs carry secrets: `nats://user:password@host`, `amqp://guest:guest@…`,
// webhook URLs with `?token=…`. Errors mention those URLs, and errors are stored
// (`lastError`, attempt errors), returned to the job's owner and logged. Everything that
// keeps or shows a URL keeps only scheme, host and port, which is enough to find the
// broken endpoint and says nothing about how to get in.

// scheme:// and the rest of the URL, up to whitespace, a quote, a bracket or a list separator.
const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s,;'"<>()[\]{}`]*)/gi;

// Everything up to the last @ is treated as userinfo, even past a / or ? (a password may
// hold them unescaped): a wrong host in an error beats a leaked password.
function hostPart(rest: string): string {
  const afterUserinfo = rest.slice(rest.lastIndexOf('@') + 1);
  return /^[^/?#]*/.exec(afterUserinfo)?.[0] ?? '';
}

/** `scheme://host:port` of a URL: userinfo, path, query and fragment removed. */
export function redactUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)(\S*)/i.exec(url.trim());
  if (!m) return '[redacted url]';
  return `${(m[1] as string).toLowerCase()}${hostPart(m[2] as string)}`;
}

/** `text` with every URL in it reduced to scheme, host and port. */
export function redactUrls(text: string): string {
  return text.replace(
    URL_IN_TEXT,
    (_all, scheme: string, rest: string) => `${scheme.toLowerCase()}${hostPart(rest)}`,
  );
}

/** An error's message with its URLs redacted, for storing or returning. */
export function redactedMessage(error: unknown): string {
  return redactUrls(error instanceof Error ? error.message : String(error));
}

/**
 * `error` itself when its message holds no URL; otherwise a copy with the URLs redacted
 * (name, code and stack kept), for errors kept as another error's cause and logged.
 */
export function redactError(error: unknown): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? redactUrls(error) : error;
  const message = redactUrls(error.message);
  if (message === error.message) return error;
  const copy = new Error(message);
  copy.name = error.name;
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) (copy as Error & { code?: unknown }).code = code;
  // The stack starts with the message; its frames (file:// paths) stay as they are.
  copy.stack = error.stack ? error.stack.replace(error.message, message) : copy.stack;
  return copy;
}
