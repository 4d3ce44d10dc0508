// The hosts file as Salt's salt/modules/hosts.py reads and writes it: an ordered map of address ->
// {aliases, comment}, whole-line comments kept in place as `comment-N` entries, rewritten as
// `ip<TAB><TAB>aliases[<TAB><TAB># comment]`. The file is `hosts.file` from the minion config
// (Salt's config.option), /etc/hosts by default, so a test or a chroot can point it elsewhere.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { StateContext } from '../types.js';

export interface HostInfo {
  aliases: string[];
  comment?: string;
}
/** Address (or `comment-N`, a whole comment line) -> its entry, in file order. */
export type HostsTable = Map<string, HostInfo | string[]>;

export function hostsFilename(ctx: StateContext): string {
  const configured = ctx.exec.config['hosts.file'];
  return typeof configured === 'string' && configured !== '' ? configured : '/etc/hosts';
}

/** Salt's _list_hosts; a missing file is an empty table. */
export function listHosts(file: string): HostsTable {
  const ret: HostsTable = new Map();
  if (!existsSync(file)) return ret;
  let count = 0;
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    let line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      ret.set(`comment-${count++}`, [line]);
      continue;
    }
    let comment: string | undefined;
    const hash = line.indexOf('#');
    if (hash >= 0) {
      comment = line.slice(hash + 1).trimStart();
      line = line.slice(0, hash).trim();
    }
    const [ip, ...names] = line.split(/\s+/);
    const entry = entry_(ret, ip!);
    entry.aliases.push(...names);
    if (comment) entry.comment = comment;
  }
  return ret;
}

function entry_(table: HostsTable, ip: string): HostInfo {
  let e = table.get(ip);
  if (e === undefined || Array.isArray(e)) {
    e = { aliases: [] };
    table.set(ip, e);
  }
  return e;
}

export function hostInfo(table: HostsTable, ip: string): HostInfo | undefined {
  const e = table.get(ip);
  return e === undefined || Array.isArray(e) ? undefined : e;
}

export function hasPair(file: string, ip: string, alias: string): boolean {
  return hostInfo(listHosts(file), ip)?.aliases.includes(alias) ?? false;
}

/** Salt's _write_hosts: one line per entry, blank lines dropped, a final newline. */
function writeHosts(file: string, table: HostsTable): void {
  const lines: string[] = [];
  for (const [ip, info] of table) {
    const line = Array.isArray(info) ? info.join('') : `${ip}\t\t${info.aliases.join(' ')}${info.comment !== undefined ? `\t\t# ${info.comment}` : ''}`;
    if (line.trim() !== '') lines.push(`${line.trim()}\n`);
  }
  writeFileSync(file, lines.join(''));
}

/** Salt's add_host: append the alias to the address's entry (or a new entry) and rewrite the file. */
export function addHost(file: string, ip: string, alias: string): void {
  if (!existsSync(file)) writeFileSync(file, '');
  const table = listHosts(file);
  const e = entry_(table, ip);
  if (!e.aliases.includes(alias)) e.aliases.push(alias);
  writeHosts(file, table);
}

/** Salt's set_comment: false when the address has no entry. */
export function setComment(file: string, ip: string, comment: string): boolean {
  const table = listHosts(file);
  const e = hostInfo(table, ip);
  if (!e) return false;
  if (e.comment !== comment) {
    e.comment = comment;
    writeHosts(file, table);
  }
  return true;
}

/** Salt's rm_host: the alias leaves the address's lines; a line left without aliases goes. */
export function rmHost(file: string, ip: string, alias: string): void {
  if (!hasPair(file, ip, alias)) return;
  const out = readFileSync(file, 'utf8')
    .split(/(?<=\n)/)
    .map((line) => {
      const t = line.trim();
      if (t === '' || t.startsWith('#')) return line;
      const hash = t.indexOf('#');
      const comment = hash >= 0 ? t.slice(hash + 1).trimStart() : undefined;
      const comps = (hash >= 0 ? t.slice(0, hash) : t).split(/\s+/).filter((c) => c !== '');
      if (comps[0] !== ip) return line;
      const rest = comps.slice(1).filter((c) => c !== alias);
      if (rest.length === 0) return '';
      return `${ip}\t\t${rest.map((r) => `${r} `).join('')}${comment ? `# ${comment}` : ''}\n`;
    });
  writeFileSync(file, out.join(''));
}

/** Salt's set_host: the first line of the address becomes `ip<TAB><TAB>alias`, its other lines go; empty alias removes them all. */
export function setHost(file: string, ip: string, alias: string): void {
  if (!existsSync(file)) writeFileSync(file, '');
  const lineToAdd = alias.trim() === '' ? '' : `${ip}\t\t${alias}\n`;
  let replaced = false;
  const lines = readFileSync(file, 'utf8')
    .split(/(?<=\n)/)
    .filter((l) => l !== '');
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (t === '' || t.startsWith('#') || t.split(/\s+/)[0] !== ip) continue;
    lines[i] = replaced ? '' : lineToAdd;
    replaced = true;
  }
  if (!replaced) {
    if (lines.length > 0 && !lines[lines.length - 1]!.endsWith('\n')) lines[lines.length - 1] += '\n';
    lines.push(lineToAdd);
  }
  writeFileSync(file, lines.join(''));
}

const V4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** 4 or 6 for an address, 0 otherwise (node:net stays in src/transport; the URL parser knows IPv6). */
function ipVersion(host: string): 0 | 4 | 6 {
  if (V4.test(host)) return 4;
  if (!host.includes(':')) return 0;
  try {
    new URL(`http://[${host}]/`);
    return 6;
  } catch {
    return 0;
  }
}

/** Salt's salt.utils.validate.net.ip_addr (an address or a network, v4 or v6). */
export function isIpAddr(addr: string): boolean {
  const [host, prefix] = addr.split('/');
  const v = ipVersion(host!);
  if (v === 0) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (v === 4 ? 32 : 128));
}
