// Salt's name-resolution grains: fqdn_ip4/fqdn_ip6 (the addresses the host's fqdn resolves to,
// salt/grains/core.py ip_fqdn) and fqdns (the names the host's own addresses reverse-resolve to,
// network.fqdns). Every lookup is bounded: a slow resolver must not delay start-up.

import { lookup, lookupService } from 'node:dns/promises';

/** Resolves to the value, or to `fallback` once `ms` have passed. */
export async function within<T>(ms: number, work: Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([work.catch(() => fallback), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The fqdn's addresses of one family, [] when the host has none of that family or the name does not resolve. */
async function fqdnAddresses(fqdn: string, family: 4 | 6, hostHasFamily: boolean, ms: number): Promise<string[]> {
  if (!hostHasFamily) return [];
  const found = await within(ms, lookup(fqdn, { all: true, family }), []);
  return [...new Set(found.map((a) => a.address))];
}

/** Python's is_loopback as Salt's ip_addrs(include_loopback=False) applies it. */
function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1';
}

/** The reverse name of one address, undefined when it has none (getnameinfo then echoes the address). */
async function reverseName(address: string): Promise<string | undefined> {
  const { hostname } = await lookupService(address, 0);
  return hostname === address || hostname === '' ? undefined : hostname;
}

export interface FqdnGrainsInput {
  fqdn: string;
  ipv4: readonly string[];
  ipv6: readonly string[];
  /** enable_fqdns_grains: off leaves fqdns empty, as in Salt. */
  enableFqdns: boolean;
  timeoutMs: number;
}

export async function fqdnGrains(i: FqdnGrainsInput): Promise<Record<string, unknown>> {
  const reverse = async (): Promise<string[]> => {
    if (!i.enableFqdns) return [];
    const own = [...i.ipv4, ...i.ipv6].filter((a) => !isLoopback(a));
    const names = await Promise.all(own.map((a) => within(i.timeoutMs, reverseName(a), undefined)));
    return [...new Set(names.filter((n): n is string => n !== undefined))].sort();
  };
  const [fqdn_ip4, fqdn_ip6, fqdns] = await Promise.all([fqdnAddresses(i.fqdn, 4, i.ipv4.length > 0, i.timeoutMs), fqdnAddresses(i.fqdn, 6, i.ipv6.length > 0, i.timeoutMs), reverse()]);
  return { fqdn_ip4, fqdn_ip6, fqdns };
}
