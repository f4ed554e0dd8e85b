// Its own module so that the parts the loader calls (inbox sources, publishers) can throw it
// without importing the loader.

/** One thing wrong with a configuration: a JSON pointer to the key, and what is wrong with it. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/**
 * A configuration the service refuses to start with. `problems` lists everything found
 * wrong at once, each with a JSON pointer to the bad key; `path` is the first one's.
 *
 * @example
 * ```ts
 * try {
 *   await loadConfig('onejob.json');
 * } catch (error) {
 *   if (error instanceof ConfigError) for (const p of error.problems) console.error(p.path, p.message);
 *   throw error;
 * }
 * ```
 */
export class ConfigError extends Error {
  readonly path: string;
  readonly problems: readonly ConfigProblem[];
  constructor(path: string, message: string, source = 'config', more: readonly ConfigProblem[] = []) {
    const problems = [{ path, message }, ...more];
    super(
      problems.length === 1
        ? `${source}: ${line({ path, message })}`
        : `${source}: ${problems.length} problems\n${problems.map((p) => `  ${line(p)}`).join('\n')}`,
    );
    this.name = 'ConfigError';
    this.path = path;
    this.problems = problems;
  }

  /** One error for every problem found; undefined when there is none. */
  static of(problems: readonly ConfigProblem[], source = 'config'): ConfigError | undefined {
    const [first, ...more] = problems;
    return first ? new ConfigError(first.path, first.message, source, more) : undefined;
  }
}

const line = (p: ConfigProblem) => `${p.path || '/'} ${p.message}`;
