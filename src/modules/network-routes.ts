// network.routes, network.default_route and network.ip_addrs6 as Salt 3007 gives them on Linux
// (salt/modules/network.py _ip_route_linux: `ip -4 route show table main` and `ip -6 route show
// table all` in netstat's shape; salt/utils/network.py ip_addrs6).

import { isIPv6 } from 'node:net';
import { BrineError } from '../util/errors.js';
import { runChecked } from './host-tools.js';
import { interfaces } from './network-interfaces.js';
import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';

export interface Route {
  addr_family: 'inet' | 'inet6';
  destination: string;
  gateway: string;
  netmask: string;
  flags: string;
  interface: string;
}

function v4Mask(bits: number): string {
  const m = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return [m >>> 24, (m >>> 16) & 255, (m >>> 8) & 255, m & 255].join('.');
}

/** The `dev X` of a route line, as Salt reads it (only right after the destination or gateway). */
const devAt = (comps: readonly string[], i: number): string => (comps[i] === 'dev' ? (comps[i + 1] ?? '') : '');

// route types Salt skips in the IPv6 table
const SKIP6 = new Set(['unicast', 'broadcast', 'throw', 'unreachable', 'prohibit', 'blackhole', 'nat', 'anycast', 'multicast']);

/** Parses `ip -4 route show table main` and `ip -6 route show table all` output into Salt's route list. */
export function parseRoutes(v4: string, v6: string): Route[] {
  const out: Route[] = [];
  for (const line of v4.split('\n')) {
    const c = line.trim().split(/\s+/);
    if (c[0] === undefined || c[0] === '' || c[0] === 'unreachable') continue;
    if (c[0] === 'default') {
      out.push({ addr_family: 'inet', destination: '0.0.0.0', gateway: c[2] ?? '', netmask: '0.0.0.0', flags: 'UG', interface: devAt(c, 3) });
      continue;
    }
    const [network, bits] = c[0].split('/');
    out.push({ addr_family: 'inet', destination: network!, gateway: '0.0.0.0', netmask: v4Mask(bits === undefined ? 32 : Number(bits)), flags: 'U', interface: devAt(c, 1) });
  }
  for (const line of v6.split('\n')) {
    const c = line.trim().split(/\s+/);
    if (c[0] === undefined || c[0] === '' || SKIP6.has(c[0])) continue;
    if (c[0] === 'default') out.push({ addr_family: 'inet6', destination: '::/0', gateway: c[2] ?? '', netmask: '', flags: 'UG', interface: devAt(c, 3) });
    else if (c[0] === 'local') out.push({ addr_family: 'inet6', destination: `${c[1]}/128`, gateway: '::', netmask: '', flags: 'U', interface: devAt(c, 2) });
    else out.push({ addr_family: 'inet6', destination: c[0], gateway: '::', netmask: '', flags: 'U', interface: devAt(c, 1) });
  }
  return out;
}

function checkFamily(fun: string, family: string | undefined): void {
  if (family !== undefined && family !== 'inet' && family !== 'inet6') throw new BrineError('BAD_ARGUMENTS', `${fun}: Invalid address family ${family}; use inet, inet6 or leave it out`);
}

async function routes(fun: string, family: string | undefined, signal: AbortSignal): Promise<Route[]> {
  checkFamily(fun, family);
  const v4 = await runChecked(fun, ['ip', '-4', 'route', 'show', 'table', 'main'], { signal });
  const v6 = await runChecked(fun, ['ip', '-6', 'route', 'show', 'table', 'all'], { signal });
  const all = parseRoutes(v4.stdout, v6.stdout);
  return family === undefined ? all : all.filter((r) => r.addr_family === family);
}

/** An IPv6 address as a 128-bit number (for Salt's sort by address and cidr matching). */
export function ipv6ToBigInt(addr: string): bigint {
  const [head, tail] = addr.split('::') as [string, string | undefined];
  const parts = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'));
  const h = parts(head);
  const t = parts(tail);
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

function inSubnet6(fun: string, cidr: string, addr: string): boolean {
  const [net, bitsText] = cidr.split('/');
  const bits = bitsText === undefined ? 128 : Number(bitsText);
  if (!net || !isIPv6(net) || !Number.isInteger(bits) || bits < 0 || bits > 128) throw new BrineError('BAD_ARGUMENTS', `${fun}: cidr must be an IPv6 network such as 2000::/3, got '${cidr}'`);
  const shift = BigInt(128 - bits);
  return ipv6ToBigInt(net) >> shift === ipv6ToBigInt(addr) >> shift;
}

function ipAddrs6(fun: string, iface: string | undefined, includeLoopback: boolean, cidr: string | undefined): string[] {
  const set = new Set<string>();
  for (const [name, data] of Object.entries(interfaces())) {
    if (iface !== undefined && name !== iface) continue;
    for (const a of data.inet6 ?? []) if (includeLoopback || a.address !== '::1') set.add(a.address);
  }
  const addrs = [...set].sort((x, y) => (ipv6ToBigInt(x) < ipv6ToBigInt(y) ? -1 : 1));
  return cidr === undefined ? addrs : addrs.filter((a) => inSubnet6(fun, cidr, a));
}

const FAMILY = { name: 'family', type: 'string', doc: 'inet or inet6 (default: both)' } as const;

function ipAddrs6Function(name: string): ModuleFunction {
  return defineFunction({
    name,
    doc: 'Return the IPv6 addresses of this minion, sorted; ::1 excluded unless include_loopback=true.',
    params: [
      { name: 'interface', type: 'string', doc: 'only addresses of this interface' },
      { name: 'include_loopback', type: 'bool', default: false, doc: 'include ::1' },
      { name: 'cidr', type: 'string', doc: 'only addresses in this IPv6 network, e.g. 2000::/3' },
    ],
    run: (_ctx, a) => ipAddrs6(name, a.named.interface, a.named.include_loopback, a.named.cidr),
  });
}

export const networkRouteFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'network.routes',
    doc: 'Return the routing table as [{addr_family, destination, gateway, netmask, flags, interface}], as netstat would show it.',
    params: [FAMILY],
    run: (ctx, a) => routes('network.routes', a.named.family, ctx.signal),
  }),
  defineFunction({
    name: 'network.default_route',
    doc: 'Return the default route(s) (destination 0.0.0.0 or ::/0), in the shape of network.routes.',
    params: [FAMILY],
    run: async (ctx, a) => {
      const all = await routes('network.default_route', a.named.family, ctx.signal);
      return all.filter((r) => r.destination === '0.0.0.0' || r.destination === '::/0' || r.destination === 'default');
    },
  }),
  ipAddrs6Function('network.ip_addrs6'),
  ipAddrs6Function('network.ipaddrs6'),
];
