import { describe, expect, it } from '@jest/globals';
import { addressGroup, clientIp, parseIPv6, parseTrustProxy } from './client-ip';

describe('clientIp', () => {
  it('ignores X-Forwarded-For when no proxy is trusted', () => {
    expect(clientIp('203.0.113.9', '1.2.3.4', parseTrustProxy('0'))).toBe('203.0.113.9');
  });

  it('takes the entry our one proxy appended, not the ones the client wrote before it', () => {
    const trust = parseTrustProxy('1');
    expect(clientIp('10.0.0.2', '6.6.6.6, 7.7.7.7, 198.51.100.7', trust)).toBe('198.51.100.7');
    expect(clientIp('10.0.0.2', ['6.6.6.6', '198.51.100.7'], trust)).toBe('198.51.100.7');
  });

  it('walks as many entries as trusted hops and no further', () => {
    expect(clientIp('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.1', parseTrustProxy('2'))).toBe('198.51.100.7');
    expect(clientIp('10.0.0.2', '198.51.100.7', parseTrustProxy('3'))).toBe('198.51.100.7');
  });

  it('with CIDRs, skips our proxies from the right and stops at the first outside address', () => {
    const trust = parseTrustProxy('10.0.0.0/8, ::1');
    expect(clientIp('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.1.2.3', trust)).toBe('198.51.100.7');
    expect(clientIp('203.0.113.9', '6.6.6.6', trust)).toBe('203.0.113.9');
    expect(clientIp('::1', '2001:db8::1', trust)).toBe('2001:db8::1');
  });

  it('stops at an entry that is not an address', () => {
    expect(clientIp('10.0.0.2', 'garbage', parseTrustProxy('1'))).toBe('10.0.0.2');
    expect(clientIp('10.0.0.2', 'x, not-an-ip', parseTrustProxy('10.0.0.0/8'))).toBe('10.0.0.2');
  });

  it('unmaps IPv4-mapped IPv6 peers', () => {
    expect(clientIp('::ffff:192.0.2.1', undefined, parseTrustProxy('0'))).toBe('192.0.2.1');
  });

  it('refuses a TRUSTED_PROXY_CIDRS entry that is not an address', () => {
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow();
    expect(() => parseTrustProxy('proxy.local')).toThrow();
  });
});

describe('addressGroup', () => {
  it('keeps IPv4 addresses whole', () => {
    expect(addressGroup('192.0.2.1', 56)).toBe('192.0.2.1');
  });

  it('groups IPv6 addresses by their /56 prefix', () => {
    const a = addressGroup('2001:db8:1234:5600::1', 56);
    expect(a).toBe(addressGroup('2001:db8:1234:56ff:ffff::9', 56));
    expect(a).not.toBe(addressGroup('2001:db8:1234:5700::1', 56));
    expect(a).toBe('20010db8123456000000000000000000/56');
  });

  it('honours other prefix lengths', () => {
    expect(addressGroup('2001:db8::1', 64)).toBe(addressGroup('2001:db8::ffff', 64));
    expect(addressGroup('2001:db8:0:1::1', 64)).not.toBe(addressGroup('2001:db8::1', 64));
    expect(addressGroup('2001:db8::1', 128)).not.toBe(addressGroup('2001:db8::2', 128));
  });
});

describe('parseIPv6', () => {
  it('expands :: and a trailing dotted quad', () => {
    expect(Buffer.from(parseIPv6('::1')!).toString('hex')).toBe('00000000000000000000000000000001');
    expect(Buffer.from(parseIPv6('::ffff:1.2.3.4')!).toString('hex')).toBe('00000000000000000000ffff01020304');
    expect(Buffer.from(parseIPv6('fe80::1%eth0')!).toString('hex')).toBe('fe800000000000000000000000000001');
    expect(parseIPv6('1:2:3:4:5:6:7:8:9')).toBeUndefined();
    expect(parseIPv6('1::2::3')).toBeUndefined();
  });
});
