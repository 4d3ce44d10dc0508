// IPv4/IPv6 addresses and networks for ipcidr targets, as Python's ipaddress accepts them.
// node:net does the work: isIP parses (refusing leading zeros, as Python does), SocketAddress
// gives the canonical text and BlockList answers membership. What stays here is Python's strict
// rule that a network has no host bits set, and the message naming the network meant.

import { BlockList, isIP, SocketAddress } from 'node:net';

export interface IpAddress {
  version: 4 | 6;
  /** Canonical text (RFC 5952 for IPv6): equal addresses have equal text. */
  text: string;
}

export interface IpNetwork {
  version: 4 | 6;
  /** The network address, canonical. */
  base: string;
  prefix: number;
  members: BlockList;
}

const family = (version: 4 | 6): 'ipv4' | 'ipv6' => (version === 4 ? 'ipv4' : 'ipv6');

export function parseIpAddress(text: string): IpAddress | undefined {
  const version = isIP(text);
  if (version !== 4 && version !== 6) return undefined;
  // SocketAddress drops a zone (fe80::1%eth0 names an interface, not part of the address)
  return { version, text: new SocketAddress({ address: text, family: family(version) }).address };
}

/** An address as its four octets or eight 16-bit groups, read from its canonical text. */
function unitsOf(addr: IpAddress): { width: number; values: number[] } {
  if (addr.version === 4) return { width: 8, values: addr.text.split('.').map(Number) };
  const group = (g: string): number[] => {
    if (!g.includes('.')) return [parseInt(g, 16)];
    const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
    return [(a << 8) | b, (c << 8) | d];
  };
  const words = (part: string): number[] => (part === '' ? [] : part.split(':').flatMap(group));
  const [head = '', tail] = addr.text.split('::');
  const h = words(head);
  const t = tail === undefined ? [] : words(tail);
  return { width: 16, values: [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t] };
}

/** The address with every bit after the first `prefix` cleared. */
function networkBase(addr: IpAddress, prefix: number): IpAddress {
  const { width, values } = unitsOf(addr);
  const masked = values.map((v, i) => {
    const hostBits = width - Math.max(0, Math.min(width, prefix - width * i));
    return v & ~((1 << hostBits) - 1);
  });
  if (addr.version === 4) return { version: 4, text: masked.join('.') };
  return parseIpAddress(masked.map((w) => w.toString(16)).join(':')) ?? addr;
}

export type NetworkParse = { network: IpNetwork } | { problem: string };

/** `address/prefix`, or a bare address as a single-host network. */
export function parseIpNetwork(text: string): NetworkParse {
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  const addr = parseIpAddress(addrText);
  if (!addr) return { problem: `${JSON.stringify(addrText)} is not an IPv4 or IPv6 address` };
  const bits = addr.version === 4 ? 32 : 128;
  let prefix = bits;
  if (slash >= 0) {
    const p = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > bits) return { problem: `the prefix length /${p} must be a number from 0 to ${bits}` };
    prefix = Number(p);
  }
  const base = networkBase(addr, prefix);
  if (base.text !== addr.text) return { problem: `${text} has host bits set; the network is ${base.text}/${prefix}` };
  const members = new BlockList();
  members.addSubnet(base.text, prefix, family(addr.version));
  return { network: { version: addr.version, base: base.text, prefix, members } };
}

export function inNetwork(addr: IpAddress, net: IpNetwork): boolean {
  // BlockList also matches IPv4-mapped IPv6 addresses against IPv4 networks; Python does not
  return addr.version === net.version && net.members.check(addr.text, family(addr.version));
}

export function formatIp(addr: IpAddress): string {
  return addr.text;
}
