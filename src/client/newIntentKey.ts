/**
 * A fresh idempotency key for one user intent. Make it once, when the form renders,
 * and send it with every retry and with the fallback button: the key names the intent,
 * not the request. Uses Web Crypto, so it runs in browsers and in Node 20.
 *
 * @example
 * ```ts
 * // When the checkout form renders, not when the button is clicked:
 * const key = newIntentKey('checkout-'); // 'checkout-3f0c…'
 * await client.jobs.create('charge', { amount: 1999 }, { idempotencyKey: key });
 * ```
 */
export function newIntentKey(prefix = ''): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return prefix + c.randomUUID();
  if (typeof c?.getRandomValues !== 'function')
    throw new Error('newIntentKey needs Web Crypto (crypto.getRandomValues)');
  // RFC 9562 version 4 layout from 16 random bytes (randomUUID is missing on insecure origins).
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${prefix}${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
