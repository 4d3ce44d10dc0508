// Interface data in Salt's shape ({name: {up, hwaddr, inet: [...], inet6: [...]}}): link state
// and hardware address from /sys/class/net, addresses from the kernel through Node.

import { readdirSync, readFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import os from 'node:os';

export interface Inet {
  address: string;
  netmask: string;
  broadcast?: string;
  label: string;
}

export interface Inet6 {
  address: string;
  prefixlen: string;
  scope: string;
}

export interface InterfaceData {
  up: boolean;
  hwaddr?: string;
  inet?: Inet[];
  inet6?: Inet6[];
}

const IFF_UP = 0x1;

function readSys(name: string, file: string): string | undefined {
  try {
    return readFileSync(`/sys/class/net/${name}/${file}`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

export function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
}

export function intToIpv4(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

function ipv6Scope(address: string): string {
  const a = address.toLowerCase();
  if (a === '::1') return 'host';
  if (/^fe[89ab]/.test(a)) return 'link';
  if (/^fe[c-f]/.test(a)) return 'site';
  return 'global';
}

/** Every interface with its link state, hardware address and addresses, as Salt reports them. */
export function interfaces(): Record<string, InterfaceData> {
  const names = new Set<string>();
  try {
    for (const n of readdirSync('/sys/class/net')) names.add(n);
  } catch {
    // no sysfs (a container without it): fall back to the interfaces that have addresses
  }
  const addrs = os.networkInterfaces();
  for (const n of Object.keys(addrs)) names.add(n);

  const out = new Map<string, InterfaceData>();
  for (const name of [...names].sort()) {
    const flags = readSys(name, 'flags');
    const list = addrs[name] ?? [];
    const data: InterfaceData = { up: flags !== undefined ? (parseInt(flags, 16) & IFF_UP) !== 0 : list.length > 0 };
    const hw = readSys(name, 'address') ?? list[0]?.mac;
    if (hw !== undefined && hw !== '') data.hwaddr = hw;
    const inet: Inet[] = [];
    const inet6: Inet6[] = [];
    for (const a of list) {
      if (a.family === 'IPv4') {
        const entry: Inet = { address: a.address, netmask: a.netmask, label: name };
        // Loopback has no broadcast address (`ip addr` shows no brd for it).
        if (!a.internal) {
          const mask = ipv4ToInt(a.netmask);
          entry.broadcast = intToIpv4(((ipv4ToInt(a.address) & mask) | (~mask >>> 0)) >>> 0);
        }
        inet.push(entry);
      } else {
        const prefix = a.cidr?.split('/')[1] ?? '128';
        inet6.push({ address: a.address, prefixlen: prefix, scope: ipv6Scope(a.address) });
      }
    }
    if (inet.length > 0) data.inet = inet;
    if (inet6.length > 0) data.inet6 = inet6;
    out.set(name, data);
  }
  return Object.fromEntries(out);
}

/** True if ip (IPv4) lies in the IPv4 CIDR network. */
export function inSubnet(cidr: string, ip: string): boolean {
  const [net, bitsText] = cidr.split('/');
  const bits = bitsText === undefined ? 32 : Number(bitsText);
  if (!net || !isIPv4(net) || !Number.isInteger(bits) || bits < 0 || bits > 32 || !isIPv4(ip)) return false;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (ipv4ToInt(net) & mask) >>> 0 === (ipv4ToInt(ip) & mask) >>> 0;
}

export function isLoopback4(ip: string): boolean {
  return ip.startsWith('127.');
}

/** Python's ipaddress is_private for IPv4 (which Salt's type=private uses): RFC 1918, loopback, link-local, documentation and reserved ranges. */
export function isPrivate4(ip: string): boolean {
  return [
    '10.0.0.0/8',
    '172.16.0.0/12',
    '192.168.0.0/16',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '0.0.0.0/8',
    '192.0.0.0/29',
    '192.0.0.170/31',
    '255.255.255.255/32',
    '192.0.2.0/24',
    '198.18.0.0/15',
    '198.51.100.0/24',
    '203.0.113.0/24',
    '240.0.0.0/4',
  ].some((c) => inSubnet(c, ip));
}
