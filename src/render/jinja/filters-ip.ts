// Salt's IP test filters (salt/utils/network.py is_ip, is_ipv4, is_ipv6): true when the value is an
// address or an interface (address/prefix) of that version, as Python's ipaddress parses them.

import type { Filter } from './filters-jinja.js';
import { isSafeString, PyError, str } from './py-values.js';

// Rendering never imports node:net (only src/transport, src/modules and targeting do), so the
// address grammar Python's ipaddress accepts is spelled out here.
const IPV4 = /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;
const HEXTET = /^[0-9A-Fa-f]{1,4}$/;

function isIpv6(text: string): boolean {
  // a scope id (fe80::1%eth0) follows '%' and is not part of the address
  const [addr = '', ...zone] = text.split('%');
  if (zone.length > 1 || (zone.length === 1 && zone[0] === '')) return false;
  // an embedded IPv4 address (::ffff:10.0.0.1) stands for the last two words
  let words = addr;
  const v4 = /^(.*:)([^:]*\.[^:]*)$/.exec(addr);
  if (v4) {
    if (!IPV4.test(v4[2]!)) return false;
    words = `${v4[1]}0:0`;
  }
  const halves = words.split('::');
  if (halves.length > 2) return false;
  const parts = (h: string): string[] | undefined => {
    if (h === '') return [];
    const g = h.split(':');
    return g.every((x) => HEXTET.test(x)) ? g : undefined;
  };
  const head = parts(halves[0]!);
  const tail = halves.length === 2 ? parts(halves[1]!) : [];
  if (head === undefined || tail === undefined) return false;
  return halves.length === 1 ? head.length === 8 : head.length + tail.length < 8;
}

function isIP(text: string): number {
  if (IPV4.test(text)) return 4;
  return text.includes(':') && isIpv6(text) ? 6 : 0;
}

/** A dotted IPv4 mask Python accepts after '/': a netmask (ones then zeros) or a hostmask (zeros then ones). */
function ipv4Mask(mask: string): boolean {
  if (isIP(mask) !== 4) return false;
  const bits = mask
    .split('.')
    .map((o) => Number(o).toString(2).padStart(8, '0'))
    .join('');
  return /^1*0*$/.test(bits) || /^0*1*$/.test(bits);
}

/** The IP version of an address or interface string (0: neither), per ipaddress.ip_address / ip_interface. */
function ipVersion(v: unknown): number {
  // ipaddress.ip_address takes integers too (bool is an int in Python)
  if (typeof v === 'boolean') return 4;
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? (v < 2 ** 32 ? 4 : 6) : 0;
  if (typeof v !== 'string' && !isSafeString(v)) return 0;
  const [addr = '', prefix, extra] = str(v).split('/');
  if (extra !== undefined) return 0;
  const version = isIP(addr);
  if (version === 0 || prefix === undefined) return version;
  if (/^[0-9]+$/.test(prefix)) return Number(prefix) <= (version === 4 ? 32 : 128) ? version : 0;
  return version === 4 && ipv4Mask(prefix) ? 4 : 0;
}

function ipTest(version: number | null, name: string): Filter {
  return (args, kw) => {
    // Salt's options ('loopback', 'private', ...) narrow the test; brine does not evaluate them
    const options = args.length > 1 ? args[1] : kw.options;
    if (options !== undefined && options !== null) throw new PyError(`the '${name}' filter's options are not supported by brine: test the address without options`);
    const found = ipVersion(args[0]);
    return version === null ? found !== 0 : found === version;
  };
}

/** A dotted IPv4 mask as a prefix length (ipaddress prints interfaces with one). */
function maskPrefix(mask: string): number {
  const bits = mask
    .split('.')
    .map((o) => Number(o).toString(2).padStart(8, '0'))
    .join('');
  // a hostmask (zeros then ones) counts its zeros, a netmask its ones
  return /^0*1*$/.test(bits) && !/^1+$/.test(bits) ? (bits.match(/0/g) ?? []).length : (bits.match(/1/g) ?? []).length;
}

/** IPv6 in Python's compressed form: lowercase, the longest run of zero hextets as '::'. */
function compressIpv6(addr: string): string {
  return new URL(`http://[${addr}]`).hostname.slice(1, -1);
}

/** str(ipaddress.ip_address(v)) or str(ip_interface(v)) when v is of this IP version, else undefined. */
function ipText(v: unknown, version: number): string | undefined {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 2 ** 32) {
    return version === 4 ? [24, 16, 8, 0].map((sh) => Math.floor(v / 2 ** sh) % 256).join('.') : undefined;
  }
  if (ipVersion(v) !== version || (typeof v !== 'string' && !isSafeString(v))) return undefined;
  const [addr = '', prefix] = str(v).split('/');
  const shown = version === 6 ? compressIpv6(addr) : addr;
  if (prefix === undefined) return shown;
  return `${shown}/${/^[0-9]+$/.test(prefix) ? Number(prefix) : maskPrefix(prefix)}`;
}

/** Salt's ipv4/ipv6 filters (_ipv_filter): a string gives itself or None; a list keeps its addresses of that version. */
function ipvFilter(version: number, name: string): Filter {
  return (args, kw) => {
    const options = args.length > 1 ? args[1] : kw.options;
    if (options !== undefined && options !== null) throw new PyError(`the '${name}' filter's options are not supported by brine: filter the addresses without options`);
    const v = args[0];
    if (typeof v === 'string' || isSafeString(v)) return ipText(v, version) ?? null;
    if (Array.isArray(v)) return v.map((x) => ipText(x, version)).filter((x) => x !== undefined);
    return null;
  };
}

const ipv4Filter = ipvFilter(4, 'ipv4');
const ipv6Filter = ipvFilter(6, 'ipv6');

export const IP_FILTERS: Record<string, Filter> = {
  ipv4: ipv4Filter,
  ipv6: ipv6Filter,
  // Salt's ipaddr: both versions; for one string, whichever it is (`ipv4 or ipv6`)
  ipaddr: (args, kw) => {
    const v4 = ipv4Filter(args, kw);
    const v6 = ipv6Filter(args, kw);
    if (Array.isArray(v4) && Array.isArray(v6)) return [...v4, ...v6];
    return v4 || v6;
  },
  is_ip: ipTest(null, 'is_ip'),
  is_ipv4: ipTest(4, 'is_ipv4'),
  is_ipv6: ipTest(6, 'is_ipv6'),
};
