// fstab entries as Salt's mount module reads and writes them (salt/modules/mount.py
// _fstab_entry): parse a file into {name: entry}, and decide the text after adding, changing or
// removing an entry. Pure: the caller reads and writes the file.

export interface FstabEntry {
  device: string;
  name: string;
  fstype: string;
  opts: string;
  dump: string;
  pass_num: string;
}

const KEYS = ['device', 'name', 'fstype', 'opts', 'dump', 'pass_num'] as const;
type Key = (typeof KEYS)[number];

/** A line as an entry, or undefined for a comment or a line of the wrong width (kept as is). */
export function parseFstabLine(line: string): FstabEntry | undefined {
  if (line.startsWith('#')) return undefined;
  const comps = line.trim().split(/\s+/).filter(Boolean);
  if (comps.length < 4 || comps.length > 6) return undefined;
  while (comps.length < 6) comps.push('0');
  return Object.fromEntries(KEYS.map((k, i) => [k, comps[i]!])) as unknown as FstabEntry;
}

/** Salt's fstab(): {mount point: {device, fstype, opts: [...], dump, pass}}; duplicates get '_' appended. */
export function fstabTable(text: string): Record<string, { device: string; fstype: string; opts: string[]; dump: string; pass: string }> {
  const out: Record<string, { device: string; fstype: string; opts: string[]; dump: string; pass: string }> = {};
  for (const line of text.split('\n')) {
    const e = parseFstabLine(line);
    if (!e) continue;
    let name = e.name;
    while (Object.hasOwn(out, name)) name += '_';
    out[name] = { device: e.device, fstype: e.fstype, opts: e.opts.split(','), dump: e.dump, pass: e.pass_num };
  }
  return out;
}

export const formatFstabEntry = (e: FstabEntry): string => `${e.device}\t\t${e.name}\t${e.fstype}\t${e.opts}\t${e.dump} ${e.pass_num}\n`;

/** Salt's criteria match: each given key equal, opts compared as sorted sets. */
function matches(line: string, criteria: Partial<FstabEntry>): boolean {
  const e = parseFstabLine(line);
  if (!e) return false;
  for (const [k, v] of Object.entries(criteria) as [Key, string][]) {
    if (k === 'opts' ? [...e.opts.split(',')].sort().join(',') !== [...v.split(',')].sort().join(',') : e[k] !== v) return false;
  }
  return true;
}

// File systems Salt matches by mount point under match_on: auto (the rest match by device).
const SPECIAL_FS = new Set(['none', 'tmpfs', 'sysfs', 'proc', 'fusectl', 'debugfs', 'securityfs', 'devtmpfs', 'cgroup', 'nfs', 'nfs4', 'glusterfs', 'btrfs']);

/** The keys an existing line is matched on (Salt's match_on; 'auto' picks name or device). */
export function matchKeys(matchOn: string | readonly string[], fstype: string): Key[] {
  const keys = typeof matchOn === 'string' ? (matchOn === 'auto' ? [SPECIAL_FS.has(fstype) ? 'name' : 'device'] : [matchOn]) : [...matchOn];
  const bad = keys.filter((k) => !(KEYS as readonly string[]).includes(k));
  if (bad.length) throw new Error(`Unrecognized keys in match_on: "${bad.join(', ')}"`);
  return keys as Key[];
}

/** Salt's set_fstab decision: 'present', 'change' or 'new', and the file's text afterwards. */
export function setFstab(text: string, entry: FstabEntry, matchOn: string | readonly string[], notChange = false): { status: 'present' | 'change' | 'new'; text: string } {
  const criteria = Object.fromEntries(matchKeys(matchOn, entry.fstype).map((k) => [k, entry[k]])) as Partial<FstabEntry>;
  const lines = text.split(/(?<=\n)/).filter((l) => l !== '');
  let status: 'present' | 'change' | 'new' | undefined;
  const out = lines.map((line) => {
    if (!matches(line, criteria)) return line;
    status = 'present';
    if (matches(line, entry) || notChange) return line;
    status = 'change';
    return formatFstabEntry(entry);
  });
  if (status === undefined) {
    if (out.length && !out.at(-1)!.endsWith('\n')) out[out.length - 1] += '\n';
    out.push(formatFstabEntry(entry));
    status = 'new';
  }
  return { status, text: out.join('') };
}

/** Salt's rm_fstab: every line matching the mount point (and device, when given) removed. */
export function rmFstab(text: string, name: string, device?: string): { removed: boolean; text: string } {
  const criteria: Partial<FstabEntry> = device ? { name, device } : { name };
  const lines = text.split(/(?<=\n)/).filter((l) => l !== '');
  const kept = lines.filter((l) => !matches(l, criteria));
  return { removed: kept.length !== lines.length, text: kept.join('') };
}
