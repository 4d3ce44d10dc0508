// The few DER encodings (ITU-T X.690) a self-signed X.509 certificate needs, so that making one
// takes node:crypto and ~100 lines instead of a certificate library (issue 12: @peculiar/x509 with
// reflect-metadata held ~20 MB of a minion's memory after its first start).

import { isIPv4, isIPv6 } from 'node:net';

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

/** The 4 or 16 octets of an IP address (an iPAddress GeneralName). */
export function ipOctets(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  if (!isIPv6(ip)) throw new Error(`not an IP address: ${ip}`);
  let text = ip.replace(/%.*$/, '');
  // a trailing dotted quad (::ffff:1.2.3.4) becomes two groups
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  for (const [i, g] of all.entries()) out.writeUInt16BE(Number.parseInt(g, 16), i * 2);
  return out;
}
