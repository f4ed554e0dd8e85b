// Its own module so that the parts the loader calls (inbox sources, publishers) can throw it
// without importing the loader.

/**
 * A configuration the service refuses to start with. `path` is a JSON pointer to the bad key.
 *
 * @example
 * ```ts
 * try {
 *   await loadConfig('onejob.json');
 * } catch (error) {
 *   if (error instanceof ConfigError) console.error(error.path, error.message); // '/providers/pay/idempotant'
 *   throw error;
 * }
 * ```
 */
export class ConfigError extends Error {
  readonly path: string;
  constructor(path: string, message: string, source = 'config') {
    super(`${source}: ${path || '/'} ${message}`);
    this.name = 'ConfigError';
    this.path = path;
  }
}
