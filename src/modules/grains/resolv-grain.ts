// Salt's dns grain: the resolver configuration as salt/utils/dns.py parse_resolv reads it,
// from /run/systemd/resolve/resolv.conf when systemd-resolved writes one (the real upstream
// servers, not its 127.0.0.53 stub), else /etc/resolv.conf.

import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { intToIpv4, ipv4ToInt } from '../network-interfaces.js';

export interface ResolvGrain {
  nameservers: string[];
  ip4_nameservers: string[];
  ip6_nameservers: string[];
  sortlist: string[];
  domain: string;
  search: string[];
  options: string[];
}

/** Python's str(ipaddress.ip_address(x)): IPv6 in compressed lower-case form. */
function normaliseIp(addr: string): string {
  return isIP(addr) === 6 ? new URL(`http://[${addr}]/`).hostname.slice(1, -1) : addr;
}

/** Salt's natural_ipv4_netmask: the classful prefix of an address. */
function naturalPrefix(ip: string): number {
  const first = Number(ip.split('.')[0]);
  return first < 128 ? 8 : first < 192 ? 16 : 24;
}

/** One sortlist entry as ipaddress.ip_network(...).with_netmask, or undefined when Python refuses it. */
function sortlistEntry(raw: string): string | undefined {
  const [ip = '', mask] = raw.split('/');
  if (isIP(ip) !== 4) return undefined;
  let prefix: number;
  if (mask === undefined) prefix = naturalPrefix(ip);
  else if (/^\d+$/.test(mask)) prefix = Number(mask);
  else if (isIP(mask) === 4) {
    const bits = ipv4ToInt(mask).toString(2).padStart(32, '0');
    if (!/^1*0*$/.test(bits)) return undefined;
    prefix = bits.indexOf('0') === -1 ? 32 : bits.indexOf('0');
  } else return undefined;
  if (prefix > 32) return undefined;
  const m = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  const net = (ipv4ToInt(ip) & m) >>> 0;
  // ip_network is strict: host bits set is a ValueError, which Salt logs and skips
  if (mask !== undefined && net !== ipv4ToInt(ip)) return undefined;
  return `${intToIpv4(net)}/${intToIpv4(m)}`;
}

/** Pure: parse_resolv of the file's text. */
export function parseResolv(text: string): ResolvGrain {
  const r: ResolvGrain = { nameservers: [], ip4_nameservers: [], ip6_nameservers: [], sortlist: [], domain: '', search: [], options: [] };
  const addOnce = (list: string[], v: string) => {
    if (!list.includes(v)) list.push(v);
  };
  for (const line of text.split('\n')) {
    const words = line
      .trim()
      .split(/\s+/)
      .filter((w) => w !== '');
    if (words.length === 0) continue;
    const directive = (words[0] ?? '').toLowerCase();
    const args: string[] = [];
    for (const w of words.slice(1)) {
      if (w.startsWith('#') || w.startsWith(';')) break;
      args.push(w);
    }
    // Salt skips a directive without an argument (its IndexError)
    if (args.length === 0 && directive !== 'search') continue;
    if (directive === 'nameserver') {
      const family = isIP(args[0] ?? '');
      if (family === 0) continue;
      const ip = normaliseIp(args[0] ?? '');
      addOnce(r.nameservers, ip);
      addOnce(family === 4 ? r.ip4_nameservers : r.ip6_nameservers, ip);
    } else if (directive === 'domain') r.domain = args[0] ?? '';
    else if (directive === 'search') r.search = args;
    else if (directive === 'sortlist') {
      for (const raw of args) {
        const entry = sortlistEntry(raw);
        if (entry !== undefined) addOnce(r.sortlist, entry);
      }
    } else if (directive === 'options') addOnce(r.options, args[0] ?? '');
  }
  return r;
}

/** The dns grain, or {} when there is no resolver file (as in Salt). */
export function dnsGrain(files = { resolved: '/run/systemd/resolve/resolv.conf', resolv: '/etc/resolv.conf' }): Record<string, unknown> {
  const file = existsSync(files.resolved) ? files.resolved : files.resolv;
  try {
    return { dns: parseResolv(readFileSync(file, 'utf8')) };
  } catch {
    return {};
  }
}
