import { describe, expect, it } from 'vitest';
import { redactError, redactUrl, redactUrls } from '../../src/observability/redactUrl.js';

describe('URL redaction keeps scheme, host and port only', () => {
  it.each([
    ['nats://user:password@nats.internal:4222', 'nats://nats.internal:4222'],
    ['amqp://guest:guest@127.0.0.1:5672/vhost', 'amqp://127.0.0.1:5672'],
    ['https://hooks.example/path/to?token=s3cr3t#frag', 'https://hooks.example'],
    ['HTTP://u:p@Host.example:8443', 'http://Host.example:8443'],
    // Unescaped / and ? in a password: everything up to the last @ is userinfo.
    ['nats://user:pa/ss?x@host:1', 'nats://host:1'],
  ])('%s becomes %s', (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
  });

  it('redacts every URL inside a message, server lists included, and leaves the rest', () => {
    expect(
      redactUrls(
        'NATS at nats://a:b@h1:4222,nats://c:d@h2:4222 is unavailable; webhook (https://x/y?token=t) refused: ECONNREFUSED 127.0.0.1:9',
      ),
    ).toBe(
      'NATS at nats://h1:4222,nats://h2:4222 is unavailable; webhook (https://x) refused: ECONNREFUSED 127.0.0.1:9',
    );
  });

  it('an error kept as a cause is copied with its URLs redacted, its code kept', () => {
    const error = Object.assign(new Error('cannot reach amqp://guest:guest@rabbit:5672/'), {
      code: 'ECONNREFUSED',
    });
    const redacted = redactError(error) as Error & { code: string };
    expect(redacted.message).toBe('cannot reach amqp://rabbit:5672');
    expect(redacted.code).toBe('ECONNREFUSED');
    expect(redacted.stack).not.toContain('guest');
    const clean = new Error('no url here');
    expect(redactError(clean)).toBe(clean);
  });
});
