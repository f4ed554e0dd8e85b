/** Outbox event ids are UUIDs (the outbox primary key); checked before they reach SQL. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
