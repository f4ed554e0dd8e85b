// Pieces every part of the wire contract is built from.

/** An instant: RFC 3339, UTC. */
export const timestamp = { type: 'string', format: 'date-time' } as const;

/** An answer that is a list of `items`, all of them at once (no paging). */
export const itemsOf = <S>(items: S) =>
  ({
    type: 'object',
    required: ['items'],
    properties: { items: { type: 'array', items } },
    additionalProperties: false,
  }) as const;
