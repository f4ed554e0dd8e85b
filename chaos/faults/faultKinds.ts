// The fault kinds of the chaos harness, named once: the history's type, the `--faults`
// filter and its error message all derive from this list.

// The order is the schedule's: a run draws its first faults from this list shuffled, so
// a new kind goes at the end and the schedules of recorded seeds stay as they were.
export const FAULT_KINDS = Object.freeze([
  'failpoint_kill',
  'process_kill',
  'provider_stall',
  'nats_node_restart',
  'nats_node_stall',
  'postgres_restart',
  'postgres_stall',
  'relay_batch_kill',
  'provider_late',
  'primary_failover',
] as const);

export type FaultKind = (typeof FAULT_KINDS)[number];

export function isFaultKind(name: string): name is FaultKind {
  return (FAULT_KINDS as readonly string[]).includes(name);
}

/**
 * Parses `--faults KIND,KIND`: the kinds a run's schedule is restricted to. An unknown
 * name is an error that lists the known ones, never a kind silently left out.
 */
export function parseFaultKinds(text: string): FaultKind[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (names.length === 0)
    throw new Error(`--faults needs at least one kind; known kinds: ${FAULT_KINDS.join(', ')}`);
  const unknown = names.filter((n) => !isFaultKind(n));
  if (unknown.length > 0)
    throw new Error(
      `unknown fault kind${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')}; known kinds: ${FAULT_KINDS.join(', ')}`,
    );
  return [...new Set(names as FaultKind[])];
}
