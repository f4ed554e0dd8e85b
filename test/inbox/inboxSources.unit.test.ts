import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import type { InboxSourceConfig, OnejobConfig } from '../../src/config/types.js';
import { ConfigError, validateConfig } from '../../src/engine/loadConfig.js';
import { resolvePointer } from '../../src/inbox/eventIdOf.js';
import { inboxSources } from '../../src/inbox/inboxSources.js';
import { registerSignatureScheme } from '../../src/inbox/signatureSchemes.js';

// 24 bytes once decoded: the shortest secret a source accepts.
const STRONG = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
const PLAIN_STRONG = 'x'.repeat(24);

const withSource = (source: Partial<InboxSourceConfig>): OnejobConfig => ({
  ...defaultConfig,
  inbox: {
    sources: {
      pay: {
        scheme: 'standard-webhooks',
        secretEnv: 'S',
        eventId: 'header:Webhook-Id',
        operation: 'charge',
        ownerId: 'o',
        ...source,
      },
    },
  },
});

/** The config error's path, or the error itself when it is not a ConfigError. */
function refusal(build: () => unknown): string | unknown {
  try {
    build();
  } catch (error) {
    return error instanceof ConfigError ? error.path : error;
  }
  return 'accepted';
}

describe('inbox sources from config', () => {
  it('an unknown scheme, an unset secret or an unusable secret stops the server, naming the key', () => {
    const env = { S: STRONG };
    expect(() => inboxSources(withSource({ scheme: 'carrier-pigeon' }), env)).toThrow(ConfigError);
    expect(refusal(() => inboxSources(withSource({ scheme: 'carrier-pigeon' }), env))).toBe(
      '/inbox/sources/pay/scheme',
    );
    expect(refusal(() => inboxSources(withSource({}), {}))).toBe('/inbox/sources/pay/secretEnv');
    expect(refusal(() => inboxSources(withSource({}), { S: 'whsec_' }))).toBe('/inbox/sources/pay/secretEnv');
  });

  it('a webhook secret under 24 bytes is refused at start for every built-in scheme, naming the secretEnv path', () => {
    const short = {
      'standard-webhooks': `whsec_${Buffer.alloc(23, 7).toString('base64')}`,
      stripe: `whsec_${'x'.repeat(23)}`,
      github: 'x'.repeat(23),
    };
    for (const [scheme, secret] of Object.entries(short)) {
      const config = withSource({ scheme, eventId: undefined });
      expect(
        refusal(() => inboxSources(config, { S: secret })),
        scheme,
      ).toBe('/inbox/sources/pay/secretEnv');
      expect(() => inboxSources(config, { S: secret })).toThrow(/at least 24 are required/);
    }
    // The one-byte secret a sender could guess from one captured delivery.
    expect(refusal(() => inboxSources(withSource({}), { S: 'whsec_AA==' }))).toBe(
      '/inbox/sources/pay/secretEnv',
    );
    expect(refusal(() => inboxSources(withSource({}), { S: STRONG }))).toBe('accepted');
    expect(
      refusal(() =>
        inboxSources(withSource({ scheme: 'stripe', eventId: undefined }), { S: `whsec_${PLAIN_STRONG}` }),
      ),
    ).toBe('accepted');
    expect(
      refusal(() => inboxSources(withSource({ scheme: 'github', eventId: undefined }), { S: PLAIN_STRONG })),
    ).toBe('accepted');
  });

  it('standard-webhooks takes signed event ids only: webhook-id or a JSON pointer; any other header is refused at config load, naming the path', () => {
    const env = { S: STRONG };
    expect(refusal(() => inboxSources(withSource({ eventId: 'header:x-event-id' }), env))).toBe(
      '/inbox/sources/pay/eventId',
    );
    expect(
      refusal(() => validateConfig(withSource({ eventId: 'header:x-event-id' }), 'onejob.json', env)),
    ).toBe('/inbox/sources/pay/eventId');
    expect(() => validateConfig(withSource({ eventId: 'header:x-event-id' }), 'onejob.json', env)).toThrow(
      /^onejob\.json: \/inbox\/sources\/pay\/eventId names header x-event-id/,
    );
    // Accepting the risk in so many words is not possible for a scheme that signs an id.
    expect(
      refusal(() => inboxSources(withSource({ eventId: 'header:x-event-id', unsignedEventId: true }), env)),
    ).toBe('/inbox/sources/pay/unsignedEventId');
    expect(inboxSources(withSource({ eventId: 'json:/data/id' }), env).get('pay')?.eventId).toEqual({
      kind: 'json',
      pointer: '/data/id',
    });
    expect(inboxSources(withSource({ eventId: undefined }), env).get('pay')?.eventId).toEqual({
      kind: 'header',
      name: 'webhook-id',
    });
  });

  it('stripe takes its id from the signed body; github only names X-GitHub-Delivery with unsignedEventId: true', () => {
    const stripe = (s: Partial<InboxSourceConfig>) =>
      withSource({ scheme: 'stripe', eventId: undefined, ...s });
    const github = (s: Partial<InboxSourceConfig>) =>
      withSource({ scheme: 'github', eventId: undefined, ...s });
    const sEnv = { S: `whsec_${PLAIN_STRONG}` };
    const gEnv = { S: PLAIN_STRONG };
    expect(inboxSources(stripe({}), sEnv).get('pay')?.eventId).toEqual({ kind: 'json', pointer: '/id' });
    expect(refusal(() => inboxSources(stripe({ eventId: 'header:stripe-signature' }), sEnv))).toBe(
      '/inbox/sources/pay/eventId',
    );
    expect(refusal(() => inboxSources(stripe({ allowSha1: true }), sEnv))).toBe(
      '/inbox/sources/pay/allowSha1',
    );
    expect(inboxSources(github({}), gEnv).get('pay')?.eventId).toEqual({ kind: 'body-sha256' });
    expect(refusal(() => inboxSources(github({ eventId: 'header:x-github-delivery' }), gEnv))).toBe(
      '/inbox/sources/pay/eventId',
    );
    expect(
      inboxSources(github({ eventId: 'header:X-GitHub-Delivery', unsignedEventId: true }), gEnv).get('pay')
        ?.eventId,
    ).toEqual({ kind: 'header', name: 'x-github-delivery' });
    expect(
      refusal(() => inboxSources(github({ eventId: 'header:x-other', unsignedEventId: true }), gEnv)),
    ).toBe('/inbox/sources/pay/eventId');
    // GitHub signs no timestamp: a tolerance would promise a check that cannot happen.
    expect(refusal(() => inboxSources(github({ toleranceSeconds: 60 }), gEnv))).toBe(
      '/inbox/sources/pay/toleranceSeconds',
    );
  });

  it('header names are matched case-insensitively; json pointers follow RFC 6901', () => {
    const source = inboxSources(withSource({}), { S: STRONG }).get('pay');
    expect(source?.eventId).toEqual({ kind: 'header', name: 'webhook-id' });
    const doc = { data: { 'a/b': { '~x': ['zero', 'one'] } } };
    expect(resolvePointer(doc, '/data/a~1b/~0x/1')).toBe('one');
    expect(resolvePointer(doc, '/data/missing')).toBeUndefined();
    expect(resolvePointer(doc, '/data/a~1b/~0x/01')).toBeUndefined();
    expect(resolvePointer(doc, '/data/toString')).toBeUndefined();
  });

  it('a registered scheme can be named by a source', () => {
    registerSignatureScheme('always-no', {
      defaultEventId: { kind: 'json', pointer: '/id' },
      signedHeaders: [],
      settings: [],
      verifier: () => ({
        verify() {
          throw new Error('no');
        },
      }),
    });
    const config = withSource({ scheme: 'always-no', eventId: undefined });
    expect(inboxSources(config, { S: 'x' }).get('pay')?.eventId).toEqual({ kind: 'json', pointer: '/id' });
  });
});
