// Injected ID sources for the unit tests: every source answers from a plain object, files from
// a map (a missing key is an unreadable file), so each case states exactly what the host says.

import type { IdSources } from '../../../src/minion/index.js';

export interface FakeHost {
  hostname?: string;
  node?: string;
  /** getfqdn(hostname); defaults to the hostname (what Python returns when nothing resolves). */
  fqdn?: string;
  /** getaddrinfo('localhost') canonical names; an Error makes the lookup fail. */
  canon?: string[] | Error;
  files?: Record<string, string>;
  ips?: string[];
  machineId?: string;
}

export interface FakeSources extends IdSources {
  /** How often the localhost canonical name was asked for (Salt asks only when the list is empty). */
  canonCalls: number;
}

export function fakeSources(h: FakeHost): FakeSources {
  const src: FakeSources = {
    canonCalls: 0,
    hostname: async () => h.hostname ?? 'hostname',
    nodeName: async () => h.node ?? h.hostname ?? 'hostname',
    fqdn: async (name) => ({ name: h.fqdn ?? name }),
    localhostCanonNames: async () => {
      src.canonCalls++;
      if (h.canon instanceof Error) throw h.canon;
      return h.canon ?? ['localhost'];
    },
    readFile: async (file) => h.files?.[file],
    ipv4Addresses: async () => h.ips ?? [],
    machineId: async () => h.machineId,
  };
  return src;
}
