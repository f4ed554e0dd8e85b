import { describe, expect, it } from 'vitest';
import { HostSelector, triesNextHost } from '../../src/db/connectToPrimary.js';
import { DatabaseUrlError, parseHostList } from '../../src/db/hostList.js';

const hostsOf = (url: string) => parseHostList(url).hosts.map((h) => [h.host, h.port]);

describe('DATABASE_URL host lists', () => {
  it('a single-host URL without target_session_attrs is used unchanged and unchecked', () => {
    const url = 'postgres://u:p%40ss@db.example:6543/onejob?sslmode=require';
    expect(parseHostList(url)).toEqual({
      hosts: [{ host: 'db.example', port: 6543, connectionString: url }],
      targetSessionAttrs: 'any',
      plain: true,
    });
  });

  it('splits a host list into one single-host URL per host, in order, keeping credentials and parameters', () => {
    const list = parseHostList(
      'postgresql://u:secret@h1:5432,h2:5433/onejob?target_session_attrs=read-write&sslmode=disable',
    );
    expect(list.plain).toBe(false);
    expect(list.targetSessionAttrs).toBe('read-write');
    expect(list.hosts.map((h) => h.connectionString)).toEqual([
      'postgresql://u:secret@h1:5432/onejob?sslmode=disable',
      'postgresql://u:secret@h2:5433/onejob?sslmode=disable',
    ]);
  });

  it('a host without a port gets 5432, IPv6 hosts keep their brackets in the URL', () => {
    const list = parseHostList('postgres://u@[::1]:6000,h2,[fe80::2]/db?target_session_attrs=primary');
    expect(hostsOf(list.hosts[0]!.connectionString)).toEqual([['::1', 6000]]);
    expect(list.hosts.map((h) => [h.host, h.port])).toEqual([
      ['::1', 6000],
      ['h2', 5432],
      ['fe80::2', 5432],
    ]);
    expect(list.hosts[2]!.connectionString).toBe('postgres://u@[fe80::2]:5432/db');
  });

  it('accepts read-write, primary and any, and a single host with target_session_attrs is checked', () => {
    for (const attrs of ['read-write', 'primary', 'any'] as const) {
      const list = parseHostList(`postgres://h1/db?target_session_attrs=${attrs}`);
      expect(list.targetSessionAttrs).toBe(attrs);
      expect(list.plain).toBe(false);
      expect(list.hosts[0]!.connectionString).toBe('postgres://h1:5432/db');
    }
  });

  it('a host list without target_session_attrs asks for a read-write session', () => {
    expect(parseHostList('postgres://h1,h2/db').targetSessionAttrs).toBe('read-write');
  });

  it('refuses the reader attributes and unknown values, naming the value', () => {
    for (const attrs of ['read-only', 'standby', 'prefer-standby']) {
      expect(() => parseHostList(`postgres://h1,h2/db?target_session_attrs=${attrs}`)).toThrow(
        new RegExp(`target_session_attrs=${attrs}.*onejob writes`),
      );
    }
    expect(() => parseHostList('postgres://h1/db?target_session_attrs=readwrite')).toThrow(DatabaseUrlError);
  });

  it('takes hosts and ports from the host and port parameters, one port for all or one per host', () => {
    expect(hostsOf('postgres://u@/db?host=a,b&port=7000&target_session_attrs=any')).toEqual([
      ['a', 7000],
      ['b', 7000],
    ]);
    expect(hostsOf('postgres://u@/db?host=a,b&port=7000,7001')).toEqual([
      ['a', 7000],
      ['b', 7001],
    ]);
    expect(() => parseHostList('postgres://u@/db?host=a,b,c&port=1,2')).toThrow(/3 hosts and 2 ports/);
    expect(() => parseHostList('postgres://u@h1,h2/db?host=a,b')).toThrow(DatabaseUrlError);
  });

  it('a socket directory travels as the host parameter of its URL', () => {
    const list = parseHostList(
      'postgres://u@%2Fvar%2Frun%2Fpostgresql,h2:5433/db?target_session_attrs=primary',
    );
    expect(list.hosts[0]).toMatchObject({ host: '/var/run/postgresql', port: 5432 });
    expect(list.hosts[0]!.connectionString).toBe('postgres://u@/db?host=%2Fvar%2Frun%2Fpostgresql&port=5432');
  });

  it('refuses a port that is not a number', () => {
    expect(() => parseHostList('postgres://h1:54x2,h2/db')).toThrow(/"54x2" where a port number belongs/);
  });

  it('a string that is not a postgres URL is left to node-postgres', () => {
    expect(parseHostList('host=localhost dbname=x').plain).toBe(true);
  });
});

describe('the order in which a host list is tried', () => {
  const selector = () =>
    new HostSelector(parseHostList('postgres://h1,h2,h3/db?target_session_attrs=read-write'));

  it('starts with the first host, and after a failure with the next one, wrapping around', () => {
    const s = selector();
    expect(s.order()).toEqual([0, 1, 2]);
    s.failed(0);
    expect(s.order()).toEqual([1, 2, 0]);
    s.failed(1);
    s.failed(2);
    expect(s.order()).toEqual([0, 1, 2]);
  });

  it('keeps going to the host that last gave a suitable session (after a failover, the new primary)', () => {
    const s = selector();
    s.succeeded(2);
    expect(s.first()).toBe(2);
    expect(s.order()).toEqual([2, 0, 1]);
  });

  it('a failure reported late for a host already passed over does not move the order again', () => {
    const s = selector();
    s.failed(0);
    s.failed(0);
    expect(s.first()).toBe(1);
  });

  it('a refused password or database ends the search, as in libpq; anything else tries the next host', () => {
    for (const code of ['28P01', '28000', '3D000']) expect(triesNextHost({ code })).toBe(false);
    for (const code of ['ECONNREFUSED', '57P03', '53300', undefined])
      expect(triesNextHost({ code })).toBe(true);
  });
});
