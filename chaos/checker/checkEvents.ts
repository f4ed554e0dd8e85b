// The outbox: every committed event reaches the consumer at least once and takes effect
// exactly once through the consumer helper; nothing reaches it for a transaction that
// rolled back.
import type { ChaosHistory, DbSnapshot } from '../history/types.js';
import { type CheckResult, result, skipped, type Violation } from './checkResult.js';

export function checkEventsDelivered(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  const check = 'events_delivered_at_least_once';
  if (!history.features.relay) return skipped(check, 'no relay published events to NATS in this build');
  const violations: Violation[] = [];
  const delivered = new Map<string, number>();
  const consumed = new Set(history.deliveries.filter((d) => d.acked !== false).map((d) => d.eventId));
  for (const d of history.deliveries) delivered.set(d.eventId, (delivered.get(d.eventId) ?? 0) + 1);
  for (const event of snapshot.outbox) {
    if (!consumed.has(event.id)) {
      violations.push({
        check,
        detail: `committed event ${event.id} (${event.type}, subject ${event.subject}) never reached the consumer`,
        refs: { eventId: event.id },
      });
    }
  }
  const redelivered = [...delivered.values()].filter((n) => n > 1).length;
  return result(check, snapshot.outbox.length, violations, {
    deliveries: history.deliveries.length,
    eventsDeliveredMoreThanOnce: redelivered,
  });
}

export function checkEventsAppliedOnce(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  const check = 'events_applied_exactly_once';
  if (!history.features.relay) return skipped(check, 'no relay published events to NATS in this build');
  if (!history.features.consumerHelper || snapshot.effects === null)
    return skipped(check, 'the exactly-once consumer helper is not available in this build');
  const violations: Violation[] = [];
  const effects = new Map(snapshot.effects.map((e) => [e.eventId, e.count]));
  // A delivery the consumer could not apply (database away) was not acked and comes again;
  // an acked one must have taken effect exactly once.
  const deliveredIds = new Set(history.deliveries.map((d) => d.eventId));
  const ackedIds = new Set(history.deliveries.filter((d) => d.acked !== false).map((d) => d.eventId));
  for (const id of deliveredIds) {
    const count = effects.get(id) ?? 0;
    if (count > 1 || (count === 0 && ackedIds.has(id))) {
      violations.push({
        check,
        detail: `event ${id} was delivered and took effect ${count} times`,
        refs: { eventId: id, count },
      });
    }
  }
  for (const [id, count] of effects) {
    if (!deliveredIds.has(id))
      violations.push({
        check,
        detail: `event ${id} took effect ${count} times but was never delivered`,
        refs: { eventId: id },
      });
  }
  return result(check, deliveredIds.size, violations);
}

export function checkNoRolledBackEvents(history: ChaosHistory, snapshot: DbSnapshot): CheckResult {
  const check = 'no_event_for_rolled_back_transaction';
  const violations: Violation[] = [];
  const committed = new Set(snapshot.outbox.map((e) => e.id));
  const rolledBack = new Set(history.rolledBack.map((r) => `${r.owner}\u0000${r.key}`));
  const rolledBackKeys = new Set(history.rolledBack.map((r) => r.key));
  for (const job of snapshot.jobs) {
    if (rolledBack.has(`${job.ownerId}\u0000${job.idempotencyKey}`))
      violations.push({
        check,
        detail: `job ${job.id} exists for key ${job.idempotencyKey}, whose transaction rolled back`,
        refs: { jobId: job.id },
      });
  }
  for (const d of history.deliveries) {
    if (!committed.has(d.eventId))
      violations.push({
        check,
        detail: `event ${d.eventId} (${d.type}) was delivered but no committed outbox row has that id`,
        refs: { eventId: d.eventId },
      });
    else if (d.idempotencyKey !== undefined && rolledBackKeys.has(d.idempotencyKey))
      violations.push({
        check,
        detail: `event ${d.eventId} was delivered for key ${d.idempotencyKey}, whose transaction rolled back`,
        refs: { eventId: d.eventId },
      });
  }
  for (const e of snapshot.outbox) {
    if (e.idempotencyKey !== undefined && rolledBackKeys.has(e.idempotencyKey))
      violations.push({
        check,
        detail: `outbox event ${e.id} names key ${e.idempotencyKey}, whose transaction rolled back`,
        refs: { eventId: e.id },
      });
  }
  return result(check, history.rolledBack.length + history.deliveries.length, violations);
}
