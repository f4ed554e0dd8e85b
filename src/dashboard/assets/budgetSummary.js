// The owner's budgets beside its jobs: limit, spent and held in the current UTC period.
import { api, failure } from './api.js';
import { formatTime, h } from './dom.js';

// Budgets count in micros (millionths of the currency unit): shown in units, trailing zeros dropped.
const units = (micros, currency) => `${(micros / 1e6).toFixed(6).replace(/\.?0+$/, '')} ${currency}`;

/** One line per currency, or nothing when the owner is not limited. */
export async function budgetSummary() {
  try {
    const { items } = await api('/v1/budget');
    if (items.length === 0) return h('div', { 'data-testid': 'budgets' });
    return h(
      'div',
      { class: 'toolbar', 'data-testid': 'budgets', 'aria-label': 'Budgets' },
      items.map((b) =>
        h(
          'p',
          { class: 'note' },
          `Budget ${b.currency} (${b.period}${b.period === 'total' ? '' : ` since ${formatTime(b.periodStart)}`}): `,
          `spent ${units(b.spentMicros, b.currency)}, held ${units(b.heldMicros, b.currency)} `,
          `of ${units(b.limitMicros, b.currency)}; available ${units(b.availableMicros, b.currency)}`,
        ),
      ),
    );
  } catch (error) {
    return failure(error, 'Budgets');
  }
}
