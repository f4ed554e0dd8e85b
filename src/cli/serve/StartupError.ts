/** A setting the service refuses to start with; its message names the setting. */
export class StartupError extends Error {
  override name = 'StartupError';
}
