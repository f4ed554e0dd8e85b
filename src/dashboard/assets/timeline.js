// Draws a job's attempts on a time axis as SVG: when each started, when its outcome
// became unknown, when it was abandoned, which one lost the race and which one won.
// Every mark carries a text label and a <title>, so colour is never the only signal.

const SVG = 'http://www.w3.org/2000/svg';
const ROW = 38;
const TOP = 34;
const LEFT = 150;
const RIGHT = 120;
const WIDTH = 900;

function el(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs))
    if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function titled(node, text) {
  node.appendChild(el('title', {}, text));
  return node;
}

const ms = (iso) => (iso ? Date.parse(iso) : Number.NaN);

function fmtOffset(d) {
  if (d < 1000) return `+${Math.round(d)} ms`;
  if (d < 120_000) return `+${(d / 1000).toFixed(d < 10_000 ? 1 : 0)} s`;
  return `+${(d / 60_000).toFixed(1)} min`;
}

/** What happened to each attempt, from the job and its audit events. */
export function attemptStory(job, events) {
  return job.attempts.map((a) => {
    const mine = events.filter((e) => e.attemptId === a.id);
    const at = (type) => mine.find((e) => e.type === type)?.createdAt ?? null;
    return {
      attempt: a,
      winner: job.completedBy === a.id,
      unknownAt: at('attempt_unknown') ?? (a.state === 'unknown' ? a.finishedAt : null),
      abandonedAt: at('abandoned') ?? (a.state === 'abandoned' ? a.finishedAt : null),
      lostAt:
        at('race_lost') ?? at('late_result_discarded') ?? (a.state === 'lost_race' ? a.finishedAt : null),
    };
  });
}

export function describeStory(story) {
  return story
    .map(({ attempt: a, winner, unknownAt, abandonedAt }) => {
      const parts = [`attempt ${a.n} on ${a.provider}`];
      if (unknownAt) parts.push('outcome unknown');
      if (abandonedAt) parts.push('abandoned');
      if (a.state === 'lost_race') parts.push('finished second and lost the race');
      else if (winner) parts.push('won');
      else if (!abandonedAt && !unknownAt) parts.push(a.state);
      return parts.join(', ');
    })
    .join('; ');
}

/** Waits longer than this (and than 4× the typical step) are drawn shortened, with a break. */
const MIN_GAP_MS = 2_000;

/**
 * A time axis from `from` to `to` (pixels) through the sorted instants `points`. Each
 * stretch between two instants keeps its length, except a long wait (an unknown outcome
 * left for minutes, a retry backoff), which is shortened to the gap threshold and marked
 * as a break, so a one-second attempt stays visible beside a one-minute wait.
 */
export function timeAxis(points, from, to) {
  const segments = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const d = points[i + 1] - points[i];
    if (d > 0) segments.push({ a: points[i], b: points[i + 1], d });
  }
  const sorted = segments.map((s) => s.d).sort((p, q) => p - q);
  const median = sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : 0;
  const gap = Math.max(MIN_GAP_MS, 4 * median);
  let at = 0;
  for (const s of segments) {
    s.broken = s.d > gap;
    s.shown = s.broken ? gap : s.d;
    s.at = at;
    at += s.shown;
  }
  const total = Math.max(at, 1);
  const x = (t) => {
    if (!segments.length || t <= segments[0].a) return from;
    for (const s of segments)
      if (t <= s.b) return from + ((s.at + ((t - s.a) / s.d) * s.shown) / total) * (to - from);
    return to;
  };
  return { x, breaks: segments.filter((s) => s.broken) };
}

function fmtDuration(d) {
  if (d < 1000) return `${Math.round(d)} ms`;
  if (d < 120_000) return `${(d / 1000).toFixed(d < 10_000 ? 1 : 0)} s`;
  if (d < 7_200_000) return `${(d / 60_000).toFixed(1)} min`;
  return `${(d / 3_600_000).toFixed(1)} h`;
}

/** The instants the axis passes through: creation, every attempt's marks, every event, and now while live. */
function timelinePoints(job, story, events, now) {
  // Still moving: an attempt without an end, or an outcome nobody has resolved yet.
  const live = job.attempts.some((a) => !a.finishedAt) || job.state === 'unknown';
  const times = [ms(job.createdAt), ms(job.updatedAt)];
  for (const s of story) {
    times.push(
      ms(s.attempt.startedAt),
      ms(s.attempt.finishedAt),
      ms(s.unknownAt),
      ms(s.abandonedAt),
      ms(s.lostAt),
    );
  }
  for (const e of events) times.push(ms(e.createdAt));
  if (live) times.push(now);
  return [...new Set(times.filter((t) => Number.isFinite(t)))].sort((p, q) => p - q);
}

/** The empty SVG with its accessible title and description, and the hatch pattern. */
function timelineFrame(job, story, height) {
  const titleId = `tl-title-${job.id}`;
  const descId = `tl-desc-${job.id}`;
  const svg = el('svg', {
    class: 'timeline',
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: 'img',
    'aria-labelledby': `${titleId} ${descId}`,
    'data-testid': 'attempt-timeline',
  });
  svg.appendChild(el('title', { id: titleId }, `Attempt timeline of job ${job.id}`));
  svg.appendChild(el('desc', { id: descId }, story.length ? describeStory(story) : 'No attempts yet.'));

  const defs = el('defs');
  const hatch = el('pattern', {
    id: 'hatch',
    width: 6,
    height: 6,
    patternUnits: 'userSpaceOnUse',
    patternTransform: 'rotate(45)',
  });
  hatch.appendChild(el('rect', { width: 6, height: 6, fill: '#fff8c5' }));
  hatch.appendChild(el('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#7d4e00', 'stroke-width': 2 }));
  defs.appendChild(hatch);
  svg.appendChild(defs);
  return svg;
}

/** The axis with relative ticks from the job's creation, and a band where a wait is shortened. */
function drawAxis(svg, axis, t0, t1, axisY, height) {
  const x = axis.x;
  svg.appendChild(el('line', { class: 'axis', x1: LEFT, x2: WIDTH - RIGHT, y1: axisY, y2: axisY }));
  // Shortened waits: a grey band across every row, ≈ on the axis, the real length in words.
  for (const b of axis.breaks) {
    const bx = x(b.a);
    const bw = x(b.b) - bx;
    const band = el('rect', {
      class: 'gap',
      x: bx + bw * 0.3,
      y: axisY,
      width: bw * 0.4,
      height: height - 20 - axisY,
      'data-testid': 'axis-break',
    });
    svg.appendChild(titled(band, `${fmtDuration(b.d)} passed here; the axis is shortened`));
    svg.appendChild(
      el('text', { class: 'tick break', x: bx + bw / 2, y: axisY + 4, 'text-anchor': 'middle' }, '≈'),
    );
  }
  const tickTimes = axis.breaks.length
    ? [t0, ...axis.breaks.flatMap((b) => [b.a, b.b]), t1]
    : [0, 1, 2, 3, 4].map((i) => t0 + ((t1 - t0) * i) / 4);
  let lastTickX = Number.NEGATIVE_INFINITY;
  for (const t of tickTimes) {
    const tx = x(t);
    if (tx - lastTickX < 64) continue;
    lastTickX = tx;
    svg.appendChild(
      el(
        'text',
        { class: 'tick', x: tx, y: axisY - 6, 'text-anchor': 'middle' },
        t === t0 ? 'created' : fmtOffset(t - t0),
      ),
    );
  }
}

/** A vertical line where a settled job ended. */
function drawJobEnd(svg, job, x, axisY, height) {
  const finishedAt =
    job.state === 'succeeded' || job.state === 'failed' || job.state === 'cancelled'
      ? ms(job.updatedAt)
      : Number.NaN;
  if (!Number.isFinite(finishedAt)) return;
  const line = el('line', {
    class: 'event-line',
    x1: x(finishedAt),
    x2: x(finishedAt),
    y1: axisY,
    y2: height - 20,
  });
  svg.appendChild(titled(line, `job ${job.state} at ${job.updatedAt}`));
  svg.appendChild(
    el(
      'text',
      { class: 'tick', x: x(finishedAt), y: height - 6, 'text-anchor': 'middle' },
      `job ${job.state}`,
    ),
  );
}

/** The span after a timeout during which the attempt's outcome was unknown, with its `?`. */
function drawUnknownSpan(g, s, x, y, t1, end) {
  const a = s.attempt;
  const unknownAt = ms(s.unknownAt);
  const abandonedAt = ms(s.abandonedAt);
  const until = Number.isFinite(abandonedAt) ? abandonedAt : a.state === 'unknown' ? t1 : end;
  const unknownBar = el('rect', {
    class: 'bar unknown-span',
    x: x(unknownAt),
    y,
    width: Math.max(3, x(until) - x(unknownAt)),
    height: 22,
    rx: 3,
  });
  g.appendChild(titled(unknownBar, `timed out at ${s.unknownAt}: outcome unknown, new attempts blocked`));
  g.appendChild(
    titled(
      el('text', { class: 'marker unknown', x: x(unknownAt) - 4, y: y - 2 }, '?'),
      'timeout: outcome unknown',
    ),
  );
}

/** The words and the mark (symbol, class, title) that end an attempt's row. */
function attemptOutcome(s) {
  const a = s.attempt;
  if (s.winner)
    return { label: 'winner', marker: ['★', 'winner', `won: completed the job at ${a.finishedAt}`] };
  if (a.state === 'lost_race')
    return {
      label: 'lost race',
      marker: ['✕', 'lost', `finished after the winner at ${s.lostAt ?? a.finishedAt}: result discarded`],
    };
  if (Number.isFinite(ms(s.abandonedAt)))
    return {
      label: 'abandoned',
      marker: ['⊘', 'abandoned', `abandoned at ${s.abandonedAt}: it can never complete the job`],
    };
  if (a.state === 'failed') return { label: a.state, marker: ['✕', 'failed', `failed at ${a.finishedAt}`] };
  return { label: a.state, marker: null };
}

/** One attempt's row: its name, its bar, the unknown span, and how it ended. */
function attemptRow(s, i, x, t1) {
  const a = s.attempt;
  const y = TOP + i * ROW + 6;
  const g = el('g', { class: 'attempt', 'data-attempt': a.n, 'data-state': a.state });
  g.appendChild(el('text', { x: 8, y: y + 17 }, `#${a.n} ${a.provider}`));
  if (a.origin && a.origin !== 'worker')
    g.appendChild(el('text', { x: 8, y: y + 30, class: 'tick' }, a.origin));
  const start = ms(a.startedAt);
  const end = Number.isFinite(ms(a.finishedAt)) ? ms(a.finishedAt) : t1;
  const unknownAt = ms(s.unknownAt);
  const abandonedAt = ms(s.abandonedAt);
  // The known part of the attempt, then (if it timed out) the span where its outcome was unknown.
  const knownEnd = Number.isFinite(unknownAt) ? unknownAt : end;
  const barClass = s.winner
    ? 'succeeded'
    : Number.isFinite(unknownAt) && !Number.isFinite(abandonedAt)
      ? 'running'
      : a.state;
  const bar = el('rect', {
    class: `bar ${barClass}`,
    x: x(start),
    y,
    width: Math.max(3, x(knownEnd) - x(start)),
    height: 22,
    rx: 3,
  });
  g.appendChild(
    titled(
      bar,
      `attempt ${a.n} (${a.provider}) started ${a.startedAt}${a.finishedAt ? `, finished ${a.finishedAt}` : ', still running'}: ${a.state}`,
    ),
  );
  if (Number.isFinite(unknownAt)) drawUnknownSpan(g, s, x, y, t1, end);
  const { label, marker } = attemptOutcome(s);
  const markX = Number.isFinite(abandonedAt) ? x(abandonedAt) : x(end);
  if (marker)
    g.appendChild(
      titled(el('text', { class: `marker ${marker[1]}`, x: markX + 4, y: y + 16 }, marker[0]), marker[2]),
    );
  g.appendChild(
    el(
      'text',
      { x: Math.min(WIDTH - RIGHT + 24, markX + 20), y: y + 16, class: `state-label s-${a.state}` },
      label,
    ),
  );
  return g;
}

/** The SVG timeline of `job` (with `events` from /v1/jobs/{id}/events), as of `now`. */
export function drawTimeline(job, events, now = Date.now()) {
  const story = attemptStory(job, events);
  const points = timelinePoints(job, story, events, now);
  const t0 = points[0];
  const t1 = Math.max(t0 + 1, points.at(-1));
  if (points.length === 1) points.push(t1);
  const axis = timeAxis(points, LEFT, WIDTH - RIGHT);
  const height = TOP + Math.max(1, story.length) * ROW + 26;
  const svg = timelineFrame(job, story, height);
  const axisY = TOP - 12;
  drawAxis(svg, axis, t0, t1, axisY, height);
  drawJobEnd(svg, job, axis.x, axisY, height);
  if (!story.length) {
    svg.appendChild(
      el('text', { x: LEFT, y: TOP + 20 }, 'No attempts yet: the job is waiting for a worker.'),
    );
    return svg;
  }
  for (const [i, s] of story.entries()) svg.appendChild(attemptRow(s, i, axis.x, t1));
  return svg;
}
