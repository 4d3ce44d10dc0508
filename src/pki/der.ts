// The few DER encodings (ITU-T X.690) a self-signed X.509 certificate needs, so that making one
// takes node:crypto and ~100 lines instead of a certificate library (issue 12: @peculiar/x509 with
// reflect-metadata held ~20 MB of a minion's memory after its first start).

export type Der = Buffer;

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One tag-length-value; `tag` is the whole identifier octet. */
export function tlv(tag: number, content: Buffer): Der {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

export const sequence = (...items: Der[]): Der => tlv(0x30, Buffer.concat(items));
export const set = (...items: Der[]): Der => tlv(0x31, Buffer.concat(items));
/** [n] EXPLICIT, constructed */
export const explicit = (n: number, inner: Der): Der => tlv(0xa0 | n, inner);
export const octetString = (content: Buffer): Der => tlv(0x04, content);
export const bitString = (content: Buffer): Der => tlv(0x03, Buffer.concat([Buffer.from([0]), content]));
export const boolean = (v: boolean): Der => tlv(0x01, Buffer.from([v ? 0xff : 0]));

/** A non-negative INTEGER from its big-endian magnitude (a 0 byte is prefixed when the top bit is set). */
export function unsignedInteger(magnitude: Buffer): Der {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const m = magnitude.subarray(i);
  return tlv(0x02, (m[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), m]) : m);
}

export function objectIdentifier(dotted: string): Der {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** PrintableString when the text allows it (as certificate libraries choose), else UTF8String. */
export const directoryString = (text: string): Der => (PRINTABLE.test(text) ? tlv(0x13, Buffer.from(text, 'ascii')) : tlv(0x0c, Buffer.from(text, 'utf8')));

/** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050, in whole seconds. */
export function time(d: Date): Der {
  const year = d.getUTCFullYear();
  const two = (n: number): string => String(n).padStart(2, '0');
  const rest = `${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z`;
  return year < 2050 ? tlv(0x17, Buffer.from(`${two(year % 100)}${rest}`, 'ascii')) : tlv(0x18, Buffer.from(`${String(year).padStart(4, '0')}${rest}`, 'ascii'));
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const GROUP = /^[0-9a-fA-F]{1,4}$/;

/** The 4 or 16 octets of an IP address (an iPAddress GeneralName); anything else throws. */
export function ipOctets(ip: string): Buffer {
  if (IPV4.test(ip)) return Buffer.from(ip.split('.').map(Number));
  let text = ip.replace(/%[^%]+$/, ''); // a zone (fe80::1%eth0) is not part of the address
  // a trailing dotted quad (::ffff:1.2.3.4) is the last two groups
  const quad = /:((?:\d+\.){3}\d+)$/.exec(text);
  if (quad) {
    if (!IPV4.test(quad[1]!)) throw new Error(`not an IP address: ${ip}`);
    const [a, b, c, d] = quad[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const fill = 8 - head.length - tail.length;
  const all = halves.length === 2 ? [...head, ...Array<string>(fill).fill('0'), ...tail] : head;
  if (halves.length > 2 || (halves.length === 2 && fill < 1) || all.length !== 8 || !all.every((g) => GROUP.test(g))) throw new Error(`not an IP address: ${ip}`);
  const out = Buffer.alloc(16);
  for (const [i, g] of all.entries()) out.writeUInt16BE(Number.parseInt(g, 16), i * 2);
  return out;
}
