import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaultConfig.js';
import { ConfigError } from '../../src/config/loadConfig.js';
import type { InboxSourceConfig, OnejobConfig } from '../../src/config/types.js';
import { resolvePointer } from '../../src/inbox/eventIdOf.js';
import { inboxSources } from '../../src/inbox/inboxSources.js';
import { registerSignatureScheme } from '../../src/inbox/signatureSchemes.js';

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

describe('inbox sources from config', () => {
  it('an unknown scheme, an unset secret or an unusable secret stops the server, naming the key', () => {
    const env = { S: 'whsec_c2VjcmV0' };
    expect(() => inboxSources(withSource({ scheme: 'carrier-pigeon' }), env)).toThrow(ConfigError);
    expect(() => inboxSources(withSource({ scheme: 'carrier-pigeon' }), env)).toThrow(
      '/inbox/sources/pay/scheme',
    );
    expect(() => inboxSources(withSource({}), {})).toThrow('/inbox/sources/pay/secretEnv');
    expect(() => inboxSources(withSource({}), { S: 'whsec_' })).toThrow('/inbox/sources/pay/secretEnv');
  });

  it('header names are matched case-insensitively; json pointers follow RFC 6901', () => {
    const source = inboxSources(withSource({}), { S: 'whsec_c2VjcmV0' }).get('pay');
    expect(source?.eventId).toEqual({ kind: 'header', name: 'webhook-id' });
    const doc = { data: { 'a/b': { '~x': ['zero', 'one'] } } };
    expect(resolvePointer(doc, '/data/a~1b/~0x/1')).toBe('one');
    expect(resolvePointer(doc, '/data/missing')).toBeUndefined();
    expect(resolvePointer(doc, '/data/a~1b/~0x/01')).toBeUndefined();
    expect(resolvePointer(doc, '/data/toString')).toBeUndefined();
  });

  it('a registered scheme can be named by a source', () => {
    registerSignatureScheme('always-no', () => ({
      verify() {
        throw new Error('no');
      },
    }));
    expect(inboxSources(withSource({ scheme: 'always-no' }), { S: 'x' }).get('pay')?.name).toBe('pay');
  });
});
