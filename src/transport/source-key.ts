// The one key under which per-source limits count a peer (pre-auth connections, sign-in rate,
// pending keys per address, refusal summaries). An IPv6 host usually holds a whole /64, so IPv6
// sources are grouped by their /64: one host must not get around a per-source cap by changing
// its interface identifier. An IPv4-mapped IPv6 address is its IPv4 address.

import { isIP } from 'node:net';

/**
 * The per-source key of `address`: a bare address ("10.0.0.5", "::ffff:10.0.0.5", "2001:db8::1")
 * or a `formatAddress` string with a port ("10.0.0.5:4506", "[2001:db8::1]:4506").
 * IPv4 -> itself; IPv6 -> its /64 ("2001:db8:0:1::/64").
 */
export function sourceKey(address: string): string {
  let host = address;
  if (isIP(host) === 0) {
    if (host.startsWith('[')) host = host.slice(1, Math.max(1, host.indexOf(']')));
    else if (host.includes(':')) host = host.slice(0, host.lastIndexOf(':'));
  }
  if (host.toLowerCase().startsWith('::ffff:') && isIP(host.slice(7)) === 4) return host.slice(7);
  if (isIP(host) !== 6) return host; // IPv4, or 'unknown'
  return `${expandIpv6(host).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros (an embedded IPv4 tail converted). */
function expandIpv6(address: string): string[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => Number.parseInt(g, 16).toString(16));
}
