// A journal entry as Salt's journald beacon sees it: python-systemd's Reader converts each field
// (DEFAULT_CONVERTERS: PRIORITY, _PID... to int, _BOOT_ID, MESSAGE_ID to UUID, timestamps to
// datetime/timedelta, the rest UTF-8 text or bytes), the beacon compares its `services:` values
// with Python's ==, and fires salt.utils.data.simple_types_filter of the entry, where anything not
// a str/int/float/bool/list becomes its Python repr. Here from one line of `journalctl -o json`.
// The target is python-systemd 235 (Debian 12's python3-systemd, PyPI's systemd-python), whose
// timestamps carry the local zone; test/unit/beacons/journald.test.ts compares with it entry by entry.

import { execFileSync } from 'node:child_process';

/** A Python object the beacon only ever shows as its repr (UUID, datetime, timedelta, bytes). */
export class PyRepr {
  constructor(readonly repr: string) {}
}

export type JournalValue = string | number | PyRepr | JournalValue[];

const INT_FIELDS = new Set([
  'PRIORITY',
  'LEADER',
  'SESSION_ID',
  'USERSPACE_USEC',
  'INITRD_USEC',
  'KERNEL_USEC',
  '_UID',
  '_GID',
  '_PID',
  'SYSLOG_FACILITY',
  'SYSLOG_PID',
  '_AUDIT_SESSION',
  '_AUDIT_LOGINUID',
  '_SYSTEMD_SESSION',
  '_SYSTEMD_OWNER_UID',
  'CODE_LINE',
  'ERRNO',
  'EXIT_STATUS',
  'COREDUMP_PID',
  'COREDUMP_UID',
  'COREDUMP_GID',
  'COREDUMP_SESSION',
  'COREDUMP_SIGNAL',
]);
const UUID_FIELDS = new Set(['MESSAGE_ID', '_MACHINE_ID', '_BOOT_ID']);
const DATETIME_FIELDS = new Set(['_SOURCE_REALTIME_TIMESTAMP', 'COREDUMP_TIMESTAMP']);
/** journalctl's own fields that python-systemd's Reader does not return. */
const NOT_IN_READER = new Set(['__SEQNUM', '__SEQNUM_ID']);

/** Python's repr of a bytes value. */
export function bytesRepr(b: Uint8Array): string {
  const quote = b.includes(0x27) && !b.includes(0x22) ? '"' : "'";
  let s = '';
  for (const c of b) {
    const ch = String.fromCharCode(c);
    if (ch === quote || ch === '\\') s += `\\${ch}`;
    else if (c === 0x09) s += '\\t';
    else if (c === 0x0a) s += '\\n';
    else if (c === 0x0d) s += '\\r';
    else if (c < 0x20 || c >= 0x7f) s += `\\x${c.toString(16).padStart(2, '0')}`;
    else s += ch;
  }
  return `b${quote}${s}${quote}`;
}

/** Python's int() of text: optional blanks and sign, digits with single underscores between. */
function pyInt(text: string): number | undefined {
  const t = text.trim();
  return /^[+-]?\d+(_\d+)*$/.test(t) ? Number(t.replaceAll('_', '')) : undefined;
}

/**
 * python-systemd 235's local zone: datetime.now().astimezone().tzinfo, taken once (at import in
 * Python) as a fixed offset with the C library's zone name (what `date +%Z` prints).
 */
let localZone: { offsetUs: number; name: string; tz: string | undefined } | undefined;
function zone(): { offsetUs: number; name: string } {
  // kept per TZ setting: one `date` per process, yet a test that sets TZ sees its zone
  if (localZone === undefined || localZone.tz !== process.env.TZ) {
    const offsetUs = -new Date().getTimezoneOffset() * 60e6;
    let name: string;
    try {
      name = execFileSync('date', ['+%Z'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      name = offsetUs === 0 ? 'UTC' : (new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(new Date()).find((p) => p.type === 'timeZoneName')?.value ?? '');
    }
    localZone = { offsetUs, name, tz: process.env.TZ };
  }
  return localZone;
}

/** Python's repr of a str (the zone name in a timezone's repr): single quotes unless it holds one. */
const strRepr = (s: string): string => (s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`);

/**
 * repr(datetime.datetime.fromtimestamp(usec / 1e6, _LOCAL_TIMEZONE)), python-systemd 235's
 * realtime conversion: the wall time at the zone's fixed offset, with its tzinfo.
 */
export function datetimeRepr(usec: number): string {
  const z = zone();
  const local = usec + z.offsetUs;
  const d = new Date(Math.floor(local / 1000));
  const parts = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), ((local % 1e6) + 1e6) % 1e6];
  // Python leaves out microsecond when 0, then second when 0 too
  if (parts[6] === 0) {
    parts.pop();
    if (parts[5] === 0) parts.pop();
  }
  return `datetime.datetime(${parts.join(', ')}, tzinfo=datetime.timezone(${timedeltaRepr(z.offsetUs)}, ${strRepr(z.name)}))`;
}

/** repr(datetime.timedelta(microseconds=usec)). */
export function timedeltaRepr(usec: number): string {
  const days = Math.floor(usec / 86_400e6);
  const rest = usec - days * 86_400e6;
  const seconds = Math.floor(rest / 1e6);
  const micro = rest - seconds * 1e6;
  const shown = [days !== 0 ? `days=${days}` : '', seconds !== 0 ? `seconds=${seconds}` : '', micro !== 0 ? `microseconds=${micro}` : ''].filter((p) => p !== '');
  return `datetime.timedelta(${shown.length === 0 ? '0' : shown.join(', ')})`;
}

/** repr(uuid.UUID(text)), or undefined where UUID() raises ValueError. */
export function uuidRepr(text: string): string | undefined {
  const hex = text
    .replace(/^urn:/, '')
    .replace(/^uuid:/, '')
    .replace(/^\{|\}$/g, '')
    .replaceAll('-', '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return undefined;
  const h = hex.toLowerCase();
  return `UUID('${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}')`;
}

/** One field value's bytes: journalctl prints text as a string and anything else as a list of byte values. */
function bytesOf(v: string | number[]): Uint8Array {
  return typeof v === 'string' ? new TextEncoder().encode(v) : Uint8Array.from(v);
}

/** python-systemd's _convert_field for one value: the field's converter, else UTF-8, else bytes. */
function convertField(key: string, raw: string | number[]): JournalValue {
  const bytes = bytesOf(raw);
  let text: string | undefined;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = undefined;
  }
  const asBytes = new PyRepr(bytesRepr(bytes));
  if (key === 'COREDUMP') return asBytes;
  if (text === undefined) return asBytes;
  if (INT_FIELDS.has(key)) return pyInt(text) ?? asBytes;
  if (UUID_FIELDS.has(key)) {
    const r = uuidRepr(text);
    return r === undefined ? asBytes : new PyRepr(r);
  }
  if (DATETIME_FIELDS.has(key) || key === '__REALTIME_TIMESTAMP') {
    const n = pyInt(text);
    return n === undefined ? asBytes : new PyRepr(datetimeRepr(n));
  }
  if (key === '_SOURCE_MONOTONIC_TIMESTAMP') {
    const n = pyInt(text);
    return n === undefined ? asBytes : new PyRepr(timedeltaRepr(n));
  }
  return text;
}

const isByteList = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number');

/**
 * The entry python-systemd's Reader.get_next() returns, from one `journalctl -o json` object. A
 * field with several values is a list; __MONOTONIC_TIMESTAMP is the (timedelta, boot UUID) pair.
 */
export function readerEntry(json: Readonly<Record<string, unknown>>): Record<string, JournalValue> {
  const out: Record<string, JournalValue> = {};
  for (const [key, v] of Object.entries(json)) {
    if (NOT_IN_READER.has(key) || v === null) continue;
    if (key === '__MONOTONIC_TIMESTAMP') {
      const usec = typeof v === 'string' ? pyInt(v) : undefined;
      const boot = typeof json._BOOT_ID === 'string' ? uuidRepr(json._BOOT_ID) : undefined;
      if (usec !== undefined && boot !== undefined) out[key] = [new PyRepr(timedeltaRepr(usec)), new PyRepr(boot)];
      continue;
    }
    if (key === '__CURSOR') {
      out[key] = String(v);
      continue;
    }
    if (typeof v === 'string' || isByteList(v)) out[key] = convertField(key, v);
    else if (Array.isArray(v)) out[key] = v.filter((x): x is string | number[] => typeof x === 'string' || isByteList(x)).map((x) => convertField(key, x));
  }
  return out;
}

/** Python's == between a value from the beacon's YAML configuration and an entry's field. */
export function pyEquals(config: unknown, value: JournalValue): boolean {
  if (value instanceof PyRepr) return false;
  if (Array.isArray(value)) return Array.isArray(config) && config.length === value.length && value.every((v, i) => pyEquals(config[i], v));
  if (typeof value === 'string') return config === value;
  const n = typeof config === 'boolean' ? Number(config) : config;
  return typeof n === 'number' && n === value;
}

/** salt.utils.data.simple_types_filter: the event's data, Python objects as their repr. */
export function simpleTypes(entry: Readonly<Record<string, JournalValue>>): Record<string, unknown> {
  const filter = (v: JournalValue): unknown => (v instanceof PyRepr ? v.repr : Array.isArray(v) ? v.map(filter) : v);
  return Object.fromEntries(Object.entries(entry).map(([k, v]) => [k, filter(v)]));
}
