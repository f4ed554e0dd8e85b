// The path parameter most routes share: the id of the job, transfer or event they act on.

/** `{id}` in a route's path. */
export const idParamsSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;
