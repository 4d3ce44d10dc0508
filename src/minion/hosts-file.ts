// /etc/hosts as glibc's `files` backend reads it, for the FQDN and `localhost` lookups of the ID
// algorithm (Node's resolver API returns neither the aliases nor the canonical name).

import { pyLines, pySplit } from './py-text.js';

export const HOSTS_FILE = '/etc/hosts';

export interface HostsEntry {
  /** The address as written. */
  address: string;
  /** The canonical name first, then the aliases. */
  names: string[];
  /** 1-based line number in the file. */
  line: number;
  /** The line as written (without its comment), for messages. */
  text: string;
}

export function parseHostsFile(text: string): HostsEntry[] {
  const out: HostsEntry[] = [];
  pyLines(text).forEach((raw, i) => {
    const body = raw.split('#')[0] ?? '';
    const fields = pySplit(body);
    if (fields.length < 2) return;
    const [address, ...names] = fields as [string, ...string[]];
    if (canonicalAddress(address) === undefined) return;
    out.push({ address, names, line: i + 1, text: fields.join(' ') });
  });
  return out;
}

/** The address in one spelling (IPv6 compressed, lower case), or undefined if it is not one. */
export function canonicalAddress(address: string): string | undefined {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(address)) return address.split('.').every((o) => Number(o) <= 255) ? address : undefined;
  if (!address.includes(':')) return undefined;
  try {
    // the WHATWG URL parser canonicalises IPv6 literals (RFC 5952 compression, lower case)
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** The first line for an address, as gethostbyaddr() answers from the files backend. */
export function entryForAddress(entries: readonly HostsEntry[], address: string): HostsEntry | undefined {
  const want = canonicalAddress(address);
  if (want === undefined) return undefined;
  return entries.find((e) => canonicalAddress(e.address) === want);
}

/** The first IPv4 line naming `name` (glibc compares host names case-insensitively). */
export function ipv4EntryForName(entries: readonly HostsEntry[], name: string): HostsEntry | undefined {
  const want = name.toLowerCase();
  return entries.find((e) => !e.address.includes(':') && e.names.some((n) => n.toLowerCase() === want));
}
