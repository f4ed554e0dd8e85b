// Runs the checkout example once against your PostgreSQL:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx examples/checkout/main.ts
import { startPaymentApi } from './paymentApi.js';
import { startCheckout } from './startCheckout.js';

const connectionString = process.env.DATABASE_URL;
if (!connectionString) {
  process.stderr.write('set DATABASE_URL to a PostgreSQL database onejob may migrate\n');
  process.exit(2);
}
const payments = await startPaymentApi();
const shop = await startCheckout({ connectionString, paymentApiUrl: payments.url });
try {
  const orderId = `o-${Date.now()}`;
  const order = { orderId, customerId: 'cus_demo', amount: 1999, currency: 'EUR' as const };
  // The customer double-clicks "Pay": one order, one job.
  const [first, second] = await Promise.all([shop.placeOrder(order), shop.placeOrder(order)]);
  process.stdout.write(`job ${first.jobId} (second click replayed: ${second.replayed || first.replayed})\n`);
  for (let i = 0; i < 200; i++) {
    const row = await shop.order(orderId);
    if (row?.status !== 'awaiting_payment') {
      process.stdout.write(
        `order ${orderId}: ${row?.status}, charge ${row?.charge_id}; charges made: ${payments.charges().length}\n`,
      );
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
} finally {
  await shop.stop();
  await payments.close();
}
