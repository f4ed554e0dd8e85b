// The attempts of a job as a list of sentences: what a narrow screen shows instead of the
// timeline drawing, whose text would shrink to a few pixels there. Same facts, in words.

import { badge, duration, h, micros, timeMs } from './dom.js';
import { attemptStory } from './timeline.js';

/** One item per attempt: number, provider, how it ended, when it started and how long it took. */
export function listAttempts(job, events) {
  const story = attemptStory(job, events);
  if (!story.length)
    return h(
      'p',
      { class: 'attempt-list', 'data-testid': 'attempt-list' },
      'No attempts yet: the job is waiting for a worker.',
    );
  return h(
    'ol',
    { class: 'attempt-list', 'data-testid': 'attempt-list', 'aria-label': 'Attempts, first to last' },
    story.map(({ attempt: a, winner, unknownAt, abandonedAt }) => {
      const notes = [];
      if (winner) notes.push('★ won: its result is the job’s');
      else if (a.state === 'lost_race') notes.push('✕ finished after the winner: result discarded');
      if (unknownAt) notes.push('? timed out: outcome unknown');
      if (abandonedAt) notes.push('⊘ abandoned: it can never complete the job');
      return h(
        'li',
        { 'data-attempt': a.n, 'data-state': a.state },
        h('strong', {}, `#${a.n} ${a.provider}`),
        ' ',
        badge(winner ? 'winner' : a.state),
        a.origin && a.origin !== 'worker' ? ` (${a.origin})` : '',
        h('br'),
        'started ',
        timeMs(a.startedAt),
        a.finishedAt ? `, took ${duration(a.startedAt, a.finishedAt)}` : ', still running',
        typeof a.costMicros === 'number' ? `, cost ${micros(a.costMicros)} micros` : '',
        notes.length ? h('br') : '',
        notes.join('; '),
      );
    }),
  );
}
