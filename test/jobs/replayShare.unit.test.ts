// Intake looks a batch's keys up first only while recent batches held replays.
import { describe, expect, it } from 'vitest';
import { ReplayShare } from '../../src/jobs/replayShare.js';

describe('the replay share that picks how a create batch goes', () => {
  it('a new process looks up first, and goes straight to the intake statement once batches find nothing', () => {
    const share = new ReplayShare();
    const ways: boolean[] = [];
    for (let i = 0; i < 11; i++) {
      ways.push(share.lookUpFirst);
      share.record(0, 16);
    }
    // 0.75^9 < 0.1 <= 0.75^8: the tenth batch goes straight.
    expect(ways).toEqual([...Array.from({ length: 9 }, () => true), false, false]);
  });

  it('one batch of replays brings the look-up back; an occasional retry among many creates does not', () => {
    const share = new ReplayShare();
    for (let i = 0; i < 20; i++) share.record(0, 16);
    share.record(1, 16);
    expect(share.lookUpFirst).toBe(false);
    share.record(16, 16);
    expect(share.lookUpFirst).toBe(true);
  });

  it('an empty batch changes nothing', () => {
    const share = new ReplayShare();
    for (let i = 0; i < 20; i++) share.record(0, 16);
    share.record(0, 0);
    expect(share.lookUpFirst).toBe(false);
  });
});
