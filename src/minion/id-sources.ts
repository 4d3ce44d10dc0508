// Where the ID algorithm's raw facts come from: host names, the resolver, files, addresses and
// the machine id. Every source is one async function so tests replace any of them.

import * as dns from 'node:dns';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { entryForAddress, HOSTS_FILE, ipv4EntryForName, parseHostsFile, type HostsEntry } from './hosts-file.js';
import { pyStrip } from './py-text.js';

/** What Python's `socket.getfqdn(name)` answered, and how (for the warnings). */
export interface FqdnAnswer {
  name: string;
  /** The address `name` resolved to, when it resolved. */
  address?: string;
  /** hosts: the reverse answer came from /etc/hosts; resolver: from getnameinfo; unresolved: name returned as is. */
  via?: 'hosts' | 'resolver' | 'unresolved';
  /** The /etc/hosts line that answered the reverse lookup. */
  hostsEntry?: HostsEntry;
  /** The /etc/hosts line that maps the name to its address, when one does. */
  forwardEntry?: HostsEntry;
}

export interface IdSources {
  /** Python's `socket.gethostname()`. */
  hostname(): Promise<string>;
  /** Python's `platform.node()` (uname's nodename). */
  nodeName(): Promise<string>;
  /** Python's `socket.getfqdn(name)`. */
  fqdn(name: string): Promise<FqdnAnswer>;
  /** Canonical names of `localhost` (getaddrinfo AF_INET, AI_CANONNAME); throws when it does not resolve. */
  localhostCanonNames(): Promise<string[]>;
  /** A file's text, or undefined when it cannot be read (Salt skips it on OSError). */
  readFile(file: string): Promise<string | undefined>;
  /** IPv4 addresses of every interface, loopback excluded, de-duplicated and sorted numerically (Salt's ip_addrs()). */
  ipv4Addresses(): Promise<string[]>;
  /** This machine's id (/etc/machine-id), or undefined when there is none. */
  machineId(): Promise<string | undefined>;
}

export interface FqdnResolver {
  lookup(name: string): Promise<string>;
  /** getnameinfo(address): the name, or the address itself when there is no name. */
  lookupService(address: string): Promise<string>;
  hostsText(): Promise<string | undefined>;
  hostname(): Promise<string>;
}

/**
 * Python's getfqdn: resolve the name to an address (first getaddrinfo answer, as CPython's
 * gethostbyaddr does), ask for that address's name and aliases, and return the first of them
 * containing a dot, else the name found; on any failure the name itself. Node cannot call
 * gethostbyaddr(), so the reverse step reads /etc/hosts as glibc's files backend does and only
 * then asks getnameinfo (which gives no aliases): exact for `hosts: files dns`.
 */
export async function pythonGetfqdn(input: string, r: FqdnResolver): Promise<FqdnAnswer> {
  let name = pyStrip(input);
  if (name === '' || name === '0.0.0.0') name = await r.hostname();
  let address: string;
  try {
    address = await r.lookup(name);
  } catch {
    return { name, via: 'unresolved' };
  }
  let primary: string;
  let aliases: string[] = [];
  let via: FqdnAnswer['via'];
  const text = await r.hostsText();
  const entries = text === undefined ? [] : parseHostsFile(text);
  const entry = entryForAddress(entries, address);
  const forward = entries.find((e) => e.names.some((n) => n.toLowerCase() === name.toLowerCase()));
  if (entry) {
    [primary, ...aliases] = entry.names as [string, ...string[]];
    via = 'hosts';
  } else {
    try {
      primary = await r.lookupService(address);
    } catch {
      return { name, address, via: 'unresolved' };
    }
    // getnameinfo hands back the numeric address when no name exists: gethostbyaddr fails then
    if (primary === address) return { name, address, via: 'unresolved' };
    via = 'resolver';
  }
  const dotted = [primary, ...aliases].find((n) => n.includes('.'));
  const answer: FqdnAnswer = { name: dotted ?? primary, address, via };
  if (entry) answer.hostsEntry = entry;
  if (forward) answer.forwardEntry = forward;
  return answer;
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.promises.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** IPv4 addresses sorted as Python's ipaddress objects sort: numerically. */
export function sortIpv4(addresses: Iterable<string>): string[] {
  const num = (a: string) => a.split('.').reduce((n, o) => n * 256 + Number(o), 0);
  return [...new Set(addresses)].sort((a, b) => num(a) - num(b));
}

const systemResolver: FqdnResolver = {
  lookup: async (name) => (await dns.promises.lookup(name)).address,
  lookupService: async (address) => (await dns.promises.lookupService(address, 0)).hostname,
  hostsText: () => readText(HOSTS_FILE),
  hostname: async () => os.hostname(),
};

export const systemIdSources: IdSources = {
  hostname: async () => os.hostname(),
  // the UTS nodename, which is what uname(2) and so platform.node() report
  nodeName: async () => pyStrip((await readText('/proc/sys/kernel/hostname')) ?? os.hostname()),
  fqdn: (name) => pythonGetfqdn(name, systemResolver),
  localhostCanonNames: async () => {
    // glibc's canonical name from the files backend is the first name of the first IPv4 line
    // listing `localhost`; from DNS we cannot read ai_canonname and take the name asked for
    const text = await readText(HOSTS_FILE);
    const entry = text === undefined ? undefined : ipv4EntryForName(parseHostsFile(text), 'localhost');
    if (entry) return [entry.names[0]!];
    await dns.promises.lookup('localhost', { family: 4 });
    return ['localhost'];
  },
  readFile: readText,
  ipv4Addresses: async () => {
    const found: string[] = [];
    for (const list of Object.values(os.networkInterfaces())) {
      for (const a of list ?? []) {
        if ((a.family === 'IPv4' || (a.family as unknown) === 4) && !a.address.startsWith('127.')) found.push(a.address);
      }
    }
    return sortIpv4(found);
  },
  machineId: async () => {
    for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
      const text = await readText(file);
      const id = text === undefined ? '' : pyStrip(text);
      if (id) return id;
    }
    return undefined;
  },
};
