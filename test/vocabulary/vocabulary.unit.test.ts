import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attemptSchema, jobSchema } from '../../src/http/schemas.js';
import { ATTEMPT_TRANSITIONS, JOB_TRANSITIONS } from '../../src/jobs/stateMachine.js';
import {
  ATTEMPT_STATES,
  FINISHED_ATTEMPT_STATES,
  LIVE_ATTEMPT_STATES,
} from '../../src/vocabulary/attemptStates.js';
import {
  JOB_STATES,
  OPEN_JOB_STATES,
  SETTLED_JOB_STATES,
  TERMINAL_JOB_STATES,
} from '../../src/vocabulary/jobStates.js';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('state vocabularies', () => {
  it('the vocabulary modules import nothing, so the browser client can use them', () => {
    for (const file of readdirSync(join(root, 'src/vocabulary')))
      expect(read(`src/vocabulary/${file}`), file).not.toMatch(/^\s*(import|export .* from)\s/m);
  });

  it('the client imports only its own files, the wire contract and the vocabulary, never server code', () => {
    for (const file of readdirSync(join(root, 'src/client'))) {
      const specifiers = [
        ...read(`src/client/${file}`).matchAll(/^(?:import|export)\b[^;]*?\bfrom '([^']+)'/gm),
      ].map((m) => m[1]!);
      for (const s of specifiers)
        expect(s, `${file} imports ${s}`).toMatch(/^\.\/|^\.\.\/(vocabulary|contract)\//);
    }
  });

  it('the HTTP schemas and the state machine use exactly the defined states', () => {
    expect(jobSchema.properties.state.enum).toBe(JOB_STATES);
    expect(attemptSchema.properties.state.enum).toBe(ATTEMPT_STATES);
    expect(Object.keys(JOB_TRANSITIONS).sort()).toEqual([...JOB_STATES].sort());
    expect(Object.keys(ATTEMPT_TRANSITIONS).sort()).toEqual([...ATTEMPT_STATES].sort());
  });

  it('the subsets agree with the transition tables', () => {
    const terminal = JOB_STATES.filter((s) => JOB_TRANSITIONS[s].length === 0);
    expect([...TERMINAL_JOB_STATES].sort()).toEqual(terminal.sort());
    expect([...OPEN_JOB_STATES].sort()).toEqual(JOB_STATES.filter((s) => !terminal.includes(s)).sort());
    expect([...SETTLED_JOB_STATES].sort()).toEqual([...terminal, 'unknown'].sort());
    const finished = ATTEMPT_STATES.filter((s) => ATTEMPT_TRANSITIONS[s].length === 0);
    expect([...FINISHED_ATTEMPT_STATES].sort()).toEqual(finished.sort());
    expect([...LIVE_ATTEMPT_STATES].sort()).toEqual(
      ATTEMPT_STATES.filter((s) => !finished.includes(s)).sort(),
    );
  });

  it('no other source file spells out the full list of job states', () => {
    // The definition, and the released migrations (SQL, compiled in), which cannot import it.
    const SPELLED_OUT = ['src/vocabulary/jobStates.ts', 'src/generated/migrations.ts'];
    const list = /'queued',\s*'running',\s*'succeeded',\s*'failed',\s*'unknown',\s*'cancelled'/;
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts') && !SPELLED_OUT.includes(path) && list.test(read(path)))
          offenders.push(path);
      }
    };
    walk('src');
    expect(offenders).toEqual([]);
  });
});
