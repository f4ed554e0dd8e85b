import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every metric onejob exports, on a registry of its own so several instances (tests,
 * library users with their own prom-client) never collide. Names start with `onejob_`.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'onejob_' });
  return {
    registry,
    jobsCreated: new Counter({
      name: 'onejob_jobs_created_total',
      help: 'Jobs created (first request of an idempotency key)',
      labelNames: ['operation'] as const,
      registers: [registry],
    }),
    idempotentReplays: new Counter({
      name: 'onejob_idempotent_replays_total',
      help: 'Requests answered with an existing job because the key and body matched',
      labelNames: ['operation'] as const,
      registers: [registry],
    }),
    idempotencyConflicts: new Counter({
      name: 'onejob_idempotency_conflicts_total',
      help: 'Requests refused because the key was used with a different body',
      registers: [registry],
    }),
    intakeBatches: new Histogram({
      name: 'onejob_intake_batch_size',
      help: 'Requests per group-commit batch, by path (jobs, reads, transfers, deliveries)',
      labelNames: ['path'] as const,
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers: [registry],
    }),
    intakeBatchSeconds: new Histogram({
      name: 'onejob_intake_batch_seconds',
      help: 'Time a group-commit batch took in the database (statement, commit, any fallback), by path',
      labelNames: ['path'] as const,
      // Fine between 5 and 50 ms, where a create's latency target sits.
      buckets: [0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.035, 0.05, 0.075, 0.1, 0.25, 1],
      registers: [registry],
    }),
    intakeWaitSeconds: new Histogram({
      name: 'onejob_intake_batch_wait_seconds',
      help: "Time a group-commit batch's oldest request waited for the batch to begin, by path",
      labelNames: ['path'] as const,
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.025, 0.05, 0.1, 1],
      registers: [registry],
    }),
    intakeFallbacks: new Counter({
      name: 'onejob_intake_batch_fallbacks_total',
      help: 'Group-commit batches that failed and whose requests then went one at a time, by path',
      labelNames: ['path'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'onejob_http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    attempts: new Counter({
      name: 'onejob_attempts_total',
      help: 'Attempts that reached an outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    attemptRaces: new Counter({
      name: 'onejob_attempt_races_total',
      help: 'Completions that lost the compare-and-swap to another attempt',
      registers: [registry],
    }),
    jobsUnknown: new Gauge({
      name: 'onejob_jobs_unknown',
      help: 'Jobs whose outcome is unknown and that block new attempts',
      registers: [registry],
    }),
    claimLatency: new Histogram({
      name: 'onejob_claim_latency_seconds',
      help: 'Time from a job becoming claimable to a worker claiming it',
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers: [registry],
    }),
    outboxBacklog: new Gauge({
      name: 'onejob_outbox_backlog',
      help: 'Outbox deliveries not yet published',
      labelNames: ['publisher'] as const,
      registers: [registry],
    }),
    outboxOldestAge: new Gauge({
      name: 'onejob_outbox_oldest_age_seconds',
      help: 'Age of the oldest unpublished outbox delivery',
      labelNames: ['publisher'] as const,
      registers: [registry],
    }),
    inboxDeliveries: new Counter({
      name: 'onejob_inbox_deliveries_total',
      help: 'Webhook deliveries by source and outcome: accepted, replayed, or the refusal code',
      labelNames: ['source', 'outcome'] as const,
      registers: [registry],
    }),
    costPostFailures: new Counter({
      name: 'onejob_cost_post_failures_total',
      help: 'Attempt costs the cost poster could not post; each is recorded on its attempt and skipped until retried',
      registers: [registry],
    }),
    providerVerifications: new Counter({
      name: 'onejob_provider_verifications_total',
      help: 'Contract verifications of a provider for an operation, by result (verified, failed)',
      labelNames: ['provider', 'operation', 'result'] as const,
      registers: [registry],
    }),
    ...providerMetrics(registry),
  };
}

/** Per provider: calls in flight, throttles and pauses (docs/attempts.md, "Who runs next"). */
function providerMetrics(registry: Registry) {
  return {
    providerCallsInFlight: new Gauge({
      name: 'onejob_provider_calls_in_flight',
      help: "Provider calls this process's workers have open, by provider (sum over processes for the total)",
      labelNames: ['provider'] as const,
      registers: [registry],
    }),
    budgetRefusals: new Counter({
      name: 'onejob_budget_refusals_total',
      help: "Calls not made because the owner's budget could not hold what they could cost",
      registers: [registry],
    }),
    providerThrottles: new Counter({
      name: 'onejob_provider_throttles_total',
      help: 'Provider answers of 429 or 503 with Retry-After that paused the provider, by provider',
      labelNames: ['provider'] as const,
      registers: [registry],
    }),
    providerPausedSeconds: new Gauge({
      name: 'onejob_provider_paused_seconds',
      help: 'Seconds until a paused provider is called again (0: not paused), by provider, as recorded in the database',
      labelNames: ['provider'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
