// Salt's per-interface address grains (ip_interfaces, ip4_interfaces, ip6_interfaces,
// hwaddr_interfaces) from the same interface data as network.interfaces, and the default
// gateway grains (ip4_gw, ip6_gw, ip_gw) from the kernel's routing tables in /proc, which is
// what `ip -4/-6 route show` (Salt's source) prints.

import type { InterfaceData } from '../network-interfaces.js';
import { readHostFile } from './read-host-file.js';

/** Pure: the four interface grains, every interface present (an interface without addresses has []). */
export function interfaceGrains(ifaces: Readonly<Record<string, InterfaceData>>): Record<string, unknown> {
  const ip4: Record<string, string[]> = {};
  const ip6: Record<string, string[]> = {};
  const all: Record<string, string[]> = {};
  const hw: Record<string, string> = {};
  for (const [name, data] of Object.entries(ifaces)) {
    ip4[name] = (data.inet ?? []).map((a) => a.address);
    ip6[name] = (data.inet6 ?? []).map((a) => a.address);
    all[name] = [...ip4[name], ...ip6[name]];
    if (data.hwaddr !== undefined) hw[name] = data.hwaddr;
  }
  return { ip_interfaces: all, ip4_interfaces: ip4, ip6_interfaces: ip6, hwaddr_interfaces: hw };
}

const RTF_GATEWAY = 0x2;
const RTF_REJECT = 0x200;

/** An IPv6 address in its compressed text form (as `ip` prints it), from 32 hex digits. */
function ipv6FromHex(hex: string): string {
  const groups = hex.match(/.{4}/g)?.join(':') ?? '';
  // The WHATWG URL parser serialises IPv6 hosts in RFC 5952 form.
  return new URL(`http://[${groups}]/`).hostname.slice(1, -1);
}

/** /proc/net/route's gateway is a little-endian hex number. */
function ipv4FromHex(hex: string): string {
  const n = Number.parseInt(hex, 16);
  return [0, 8, 16, 24].map((s) => (n >>> s) & 0xff).join('.');
}

/** Pure: the first default route of /proc/net/route: its gateway, true without one, false if none. */
export function defaultGateway4(routeTable: string): string | boolean {
  for (const line of routeTable.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8 || f[1] !== '00000000' || f[7] !== '00000000') continue;
    const flags = Number.parseInt(f[3] ?? '0', 16);
    if (flags & RTF_REJECT) continue;
    return flags & RTF_GATEWAY ? ipv4FromHex(f[2] ?? '0') : true;
  }
  return false;
}

/**
 * Pure: the same for /proc/net/ipv6_route. The kernel's `unreachable default dev lo` entry is a
 * reject route, which `ip -6 route show` prints as "unreachable default", not "default".
 */
export function defaultGateway6(routeTable: string): string | boolean {
  for (const line of routeTable.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || !/^0{32}$/.test(f[0] ?? '') || f[1] !== '00') continue;
    const flags = Number.parseInt(f[8] ?? '0', 16);
    if (flags & RTF_REJECT) continue;
    const via = f[4] ?? '';
    return flags & RTF_GATEWAY && !/^0{32}$/.test(via) ? ipv6FromHex(via) : true;
  }
  return false;
}

/** The gateway grains; Salt reports none when `ip` is not installed (hasIp false). */
export function gatewayGrains(hasIp: boolean, files = { route: '/proc/net/route', route6: '/proc/net/ipv6_route' }): Record<string, unknown> {
  if (!hasIp) return {};
  const ip4 = defaultGateway4(readHostFile(files.route) ?? '');
  const ip6 = defaultGateway6(readHostFile(files.route6) ?? '');
  return { ip_gw: ip4 !== false || ip6 !== false, ip4_gw: ip4, ip6_gw: ip6 };
}
