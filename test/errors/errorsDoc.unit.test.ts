import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorRegistry } from '../../src/errors/errorRegistry.js';

describe('error registry', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

  it.each(Object.entries(errorRegistry))(
    'code %s is documented in docs/errors.md with its status',
    (code, spec) => {
      expect(doc).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${spec.status}\\s*\\|`));
    },
  );

  it('codes are snake_case strings and statuses are HTTP error statuses', () => {
    for (const [code, spec] of Object.entries(errorRegistry)) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(spec.status).toBeGreaterThanOrEqual(400);
      expect(spec.status).toBeLessThan(600);
    }
  });
});
