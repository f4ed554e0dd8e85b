// Statements written in parts name their parameters (src/db/sqlParams.ts): a part that
// follows another numbers on from where it ends, and values go in by name.
import { describe, expect, it } from 'vitest';
import { sqlParams } from '../../src/db/sqlParams.js';
import { WIN_PARAMS } from '../../src/jobs/completeWinners.js';
import { CLAIM_PARAMS, CLAIM_SQL_PARAMS } from '../../src/worker/claimJobs.js';
import { COMPLETE_AND_CLAIM_SQL } from '../../src/worker/completeAndClaim.js';

describe('sqlParams', () => {
  it('numbers names by place, and a following list on from the end of the first', () => {
    const first = sqlParams(['a', 'b'] as const);
    const next = first.followedBy(['c'] as const);
    expect(first.$).toEqual({ a: '$1', b: '$2' });
    expect(next.$).toEqual({ c: '$3' });
    expect(first.values({ b: 2, a: 1 })).toEqual([1, 2]);
  });

  it('the completion that also claims uses every placeholder from $1 up, each once per name', () => {
    const used = new Set([...COMPLETE_AND_CLAIM_SQL.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    const all = Object.keys(WIN_PARAMS.$).length + CLAIM_PARAMS.length;
    expect([...used].sort((x, y) => x - y)).toEqual(Array.from({ length: all }, (_, i) => i + 1));
    expect(Object.values(CLAIM_SQL_PARAMS.$)).toEqual(CLAIM_PARAMS.map((_, i) => `$${i + 1}`));
  });
});
