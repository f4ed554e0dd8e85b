// The wire contract of the HTTP API: a JSON Schema for every shape a route answers or is
// sent (bodies, queries, path parameters), and the TypeScript type derived from each.
// Routes serve and validate with the schemas and take their request types from them (and
// /openapi.json is generated from them); the server's views, the engine's request types,
// the SDK and the CLI use the types.
export * from './budgetRequests.js';
export * from './budgetSchemas.js';
export * from './dashboardRequests.js';
export * from './dashboardSchemas.js';
export * from './healthSchemas.js';
export * from './inboxRequests.js';
export * from './inboxSchemas.js';
export * from './jobRequests.js';
export * from './jobSchemas.js';
export * from './ledgerRequests.js';
export * from './ledgerSchemas.js';
export * from './outboxRequests.js';
export * from './outboxSchemas.js';
export * from './pathParams.js';
export * from './problemSchema.js';
export * from './providerRequests.js';
export * from './providerSchemas.js';
