// IPv4/IPv6 addresses and networks for ipcidr targets, parsed as Python's ipaddress does
// (strict: no leading zeros, a network must not have host bits set). No node:net here: the
// targeting layer stays free of sockets.

export interface IpAddress {
  version: 4 | 6;
  value: bigint;
}

export interface IpNetwork {
  version: 4 | 6;
  base: bigint;
  prefix: number;
}

const V4_OCTET = /^(0|[1-9]\d{0,2})$/;

function parseV4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const p of parts) {
    if (!V4_OCTET.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseV6(input: string): bigint | undefined {
  // a zone (fe80::1%eth0) names an interface, not part of the address
  const text = input.includes('%') ? input.slice(0, input.indexOf('%')) : input;
  const halves = text.split('::');
  if (text === '' || halves.length > 2) return undefined;
  const compressed = halves.length === 2;
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]!);
  const tail = compressed ? groups(halves[1]!) : [];
  // an embedded IPv4 address may be the final group (::ffff:10.0.0.1)
  const end = compressed ? tail : head;
  const v4Words: number[] = [];
  if (end.length > 0 && end[end.length - 1]!.includes('.')) {
    const v4 = parseV4(end.pop()!);
    if (v4 === undefined) return undefined;
    v4Words.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
  }
  const words: number[] = [];
  for (const g of [...head, ...tail]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    words.push(parseInt(g, 16));
  }
  const explicit = words.length + v4Words.length;
  // `::` stands for at least one zero group
  if (compressed ? explicit > 7 : explicit !== 8) return undefined;
  const all = [...words.slice(0, head.length), ...new Array<number>(8 - explicit).fill(0), ...words.slice(head.length), ...v4Words];
  return all.reduce((acc, w) => (acc << 16n) | BigInt(w), 0n);
}

export function parseIpAddress(text: string): IpAddress | undefined {
  const v4 = parseV4(text);
  if (v4 !== undefined) return { version: 4, value: v4 };
  if (!text.includes(':')) return undefined;
  const v6 = parseV6(text);
  return v6 === undefined ? undefined : { version: 6, value: v6 };
}

export type NetworkParse = { network: IpNetwork } | { problem: string };

/** `address/prefix`, or a bare address as a single-host network. */
export function parseIpNetwork(text: string): NetworkParse {
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  const addr = parseIpAddress(addrText);
  if (!addr) return { problem: `${JSON.stringify(addrText)} is not an IPv4 or IPv6 address` };
  const bits = addr.version === 4 ? 32 : 128;
  let prefix = bits;
  if (slash >= 0) {
    const p = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > bits) return { problem: `the prefix length /${p} must be a number from 0 to ${bits}` };
    prefix = Number(p);
  }
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  if ((addr.value & hostMask) !== 0n) {
    const base = formatIp({ version: addr.version, value: addr.value & ~hostMask });
    return { problem: `${text} has host bits set; the network is ${base}/${prefix}` };
  }
  return { network: { version: addr.version, base: addr.value, prefix } };
}

export function inNetwork(addr: IpAddress, net: IpNetwork): boolean {
  if (addr.version !== net.version) return false;
  const bits = net.version === 4 ? 32 : 128;
  const shift = BigInt(bits - net.prefix);
  return addr.value >> shift === net.base >> shift;
}

export function formatIp(addr: IpAddress): string {
  if (addr.version === 4) return [24n, 16n, 8n, 0n].map((s) => String((addr.value >> s) & 0xffn)).join('.');
  const words = Array.from({ length: 8 }, (_, i) => Number((addr.value >> BigInt(112 - 16 * i)) & 0xffffn));
  // compress the longest run of two or more zero groups, as Python and RFC 5952 do
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}
