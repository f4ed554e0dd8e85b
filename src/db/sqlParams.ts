// Named parameters for statements written in parts. Each name gets its `$n` from its place
// in the list, and a list that follows another (`followedBy`) numbers on from where that one
// ends, so fragments joined into one statement (the completion that also claims) never
// count placeholders by hand, and values are given by name, never by position.

export interface SqlParams<N extends string> {
  /** The placeholder of each name: `$3`. */
  readonly $: Readonly<Record<N, string>>;
  /** The values in placeholder order. */
  values<V>(byName: Readonly<Record<N, V>>): V[];
  /** Parameters numbered after these. */
  followedBy<const M extends string>(names: readonly M[]): SqlParams<M>;
}

export function sqlParams<const N extends string>(names: readonly N[], first = 1): SqlParams<N> {
  const $ = Object.fromEntries(names.map((name, i) => [name, `$${first + i}`])) as Record<N, string>;
  return {
    $,
    values: (byName) => names.map((name) => byName[name]),
    followedBy: (more) => sqlParams(more, first + names.length),
  };
}
