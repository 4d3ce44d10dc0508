// Where a minion keeps the key it trusts for each master (pki_dir/masters/<host>_<port>.pub) and
// how a `master` entry names that master: shared by the minion's pins and key.finger_master.

/** A master as a `master` entry names it. */
export interface MasterAddress {
  host: string;
  port: number;
}

/** The folder of per-master pins inside pki_dir. */
export const MASTER_PIN_DIR = 'masters';

/** A `master` entry: host, host:port or [v6]:port (master_port when no port is given). */
export function parseMasterEndpoint(entry: string, defaultPort: number): MasterAddress {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (v6) return { host: v6[1]!, port: v6[2] ? Number(v6[2]) : defaultPort };
  const parts = entry.split(':');
  if (parts.length === 2 && /^\d+$/.test(parts[1]!)) return { host: parts[0]!, port: Number(parts[1]) };
  return { host: entry, port: defaultPort };
}

/** A file name for a configured master address: safe characters only, the port kept apart. */
export function pinFileName(m: MasterAddress): string {
  const host = m.host.replace(/[^A-Za-z0-9.-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return `${host}_${m.port}.pub`;
}
