// The `network` module: network.ping, network.connect, network.interfaces and
// network.ip_addrs (alias network.ipaddrs), with Salt's arguments and return shapes.

import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { BrineError } from '../util/errors.js';
import { abortError } from './abort.js';
import { checkName, runArgv, which } from './host-tools.js';
import { type InterfaceData, inSubnet, interfaces, ipv4ToInt, isLoopback4, isPrivate4 } from './network-interfaces.js';
import { withRetcode } from './retcode.js';
import type { ExecContext, ModuleFunction } from './types.js';
import { defineFunction, defineParams } from './define-function.js';

const HOST = /^[A-Za-z0-9._:%-]+$/;

async function ping(ctx: ExecContext, host: string, timeout: unknown, returnBoolean: boolean, count: number): Promise<unknown> {
  const fun = 'network.ping';
  checkName(fun, 'host', host, HOST);
  if (!Number.isInteger(count) || count < 1) throw new BrineError('BAD_ARGUMENTS', `${fun}: count must be a positive integer`);
  if (!which('ping')) {
    throw new BrineError(
      'EXEC_FAILED',
      `${fun}: the ping program is not installed on this minion; install it (Debian: apt-get install iputils-ping, Fedora: dnf install iputils) or use network.connect to test a TCP port`,
    );
  }
  const argv = ['ping'];
  // Salt's timeout=False means "no -W"; anything else is the seconds to wait for each reply.
  if (timeout !== false && timeout !== undefined && timeout !== null && timeout !== 0) {
    const t = Number(timeout);
    if (!Number.isFinite(t) || t <= 0) throw new BrineError('BAD_ARGUMENTS', `${fun}: timeout must be a positive number of seconds, got '${String(timeout)}'`);
    argv.push('-W', String(t));
  }
  argv.push('-c', String(count), host);
  const r = await runArgv(fun, argv, { signal: ctx.signal });
  if (returnBoolean) return r.retcode === 0;
  const output = [r.stdout, r.stderr].filter((s) => s !== '').join('\n');
  return withRetcode(output, r.retcode);
}

function tcpProbe(address: string, port: number, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: address, port });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      sock.destroy();
      resolve(ok);
    };
    const onAbort = (): void => {
      clearTimeout(timer);
      sock.destroy();
      reject(abortError(signal, 'network.connect'));
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** Salt's UDP check: send a datagram and count the port as open only if something answers. */
function udpProbe(address: string, port: number, family: 4 | 6, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = dgram.createSocket(family === 6 ? 'udp6' : 'udp4');
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      sock.close();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.once('message', () => done(true));
    sock.once('error', () => done(false));
    sock.send(randomBytes(16).toString('hex'), port, address);
  });
}

async function connect(ctx: ExecContext, host: string, port: number, proto: string, timeout: number, family: string | undefined): Promise<{ result: boolean; comment: string }> {
  const fun = 'network.connect';
  checkName(fun, 'host', host, HOST);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new BrineError('BAD_ARGUMENTS', `${fun}: port must be 1-65535, got ${port}`);
  const p = proto.toLowerCase();
  if (p !== 'tcp' && p !== 'udp') throw new BrineError('BAD_ARGUMENTS', `${fun}: proto must be tcp or udp, got '${proto}'`);
  if (!(timeout > 0)) throw new BrineError('BAD_ARGUMENTS', `${fun}: timeout must be a positive number of seconds`);
  const fam = family === 'ipv4' ? 4 : family === 'ipv6' ? 6 : family === undefined ? 0 : undefined;
  if (fam === undefined) throw new BrineError('BAD_ARGUMENTS', `${fun}: family must be ipv4 or ipv6, got '${family}'`);
  let resolved: { address: string; family: number };
  try {
    resolved = await lookup(host, { family: fam });
  } catch {
    return { result: false, comment: `Unable to resolve host ${host} on ${p} port ${port}` };
  }
  const ok = p === 'tcp' ? await tcpProbe(resolved.address, port, timeout * 1000, ctx.signal) : await udpProbe(resolved.address, port, resolved.family === 6 ? 6 : 4, timeout * 1000);
  return ok
    ? { result: true, comment: `Successfully connected to ${host} (${resolved.address}) on ${p} port ${port}` }
    : { result: false, comment: `Unable to connect to ${host} (${resolved.address}) on ${p} port ${port}` };
}

const IP_ADDRS_PARAMS = defineParams([
  { name: 'interface', type: 'string', doc: 'only addresses of this interface' },
  { name: 'include_loopback', type: 'bool', default: false, doc: 'include 127.x addresses' },
  { name: 'cidr', type: 'string', doc: 'only addresses in this IPv4 network, e.g. 10.0.0.0/8' },
  { name: 'type', type: 'string', doc: "'public' or 'private' addresses only (ignored when cidr is given)" },
]);

function ipAddrs(fun: string, iface: string | undefined, includeLoopback: boolean, cidr: string | undefined, type: string | undefined): string[] {
  if (cidr !== undefined && !/^\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?$/.test(cidr)) throw new BrineError('BAD_ARGUMENTS', `${fun}: cidr must be an IPv4 network such as 10.0.0.0/8, got '${cidr}'`);
  if (type !== undefined && type !== 'public' && type !== 'private') throw new BrineError('BAD_ARGUMENTS', `${fun}: type must be 'public' or 'private', got '${type}'`);
  const all = interfaces();
  const set = new Set<string>();
  for (const [name, data] of Object.entries(all)) {
    if (iface !== undefined && name !== iface) continue;
    for (const a of data.inet ?? []) if (includeLoopback || !isLoopback4(a.address)) set.add(a.address);
  }
  // Sorted as addresses, not as text, as Salt sorts ipaddress objects.
  const addrs = [...set].sort((x, y) => ipv4ToInt(x) - ipv4ToInt(y));
  if (cidr !== undefined) return addrs.filter((a) => inSubnet(cidr, a));
  if (type === 'public') return addrs.filter((a) => !isPrivate4(a));
  if (type === 'private') return addrs.filter((a) => isPrivate4(a));
  return addrs;
}

/** salt.utils.network.calc_net: str(ipaddress.ip_network(f'{ip}/{netmask}', strict=False)), IPv4 only here. */
function calcNet(ip: string, netmask: string | undefined): string {
  const [addr, prefixText] = netmask === undefined ? ip.split('/') : [ip, netmask];
  const bad = (): BrineError =>
    new BrineError('BAD_ARGUMENTS', `network.calc_net: '${netmask === undefined ? ip : `${ip}/${netmask}`}' is not an IPv4 address with a netmask or prefix (IPv6 is not supported by brine)`);
  if (!addr || !net.isIPv4(addr)) throw bad();
  let bits: number;
  if (prefixText === undefined) bits = 32;
  else if (/^\d{1,2}$/.test(prefixText)) bits = Number(prefixText);
  else if (net.isIPv4(prefixText)) {
    const m = ipv4ToInt(prefixText);
    // a valid netmask is ones then zeros; Python also accepts a host mask (zeros then ones)
    const inverted = ~m >>> 0;
    if (((inverted + 1) & inverted) === 0) bits = 32 - Math.log2(inverted + 1);
    else if (((m + 1) & m) === 0) bits = 32 - Math.log2(m + 1);
    else throw bad();
  } else throw bad();
  if (bits > 32) throw bad();
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  const n = (ipv4ToInt(addr) & mask) >>> 0;
  return `${[n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.')}/${bits}`;
}

/**
 * salt.utils.network._get_iface_info: one interface's data, or (Salt returns it as the function's
 * value, not as an error) the message naming the interfaces that exist.
 */
function ifaceInfo(iface: string): InterfaceData | string {
  const all = interfaces();
  const data = all[iface];
  if (data !== undefined) return data;
  return `Interface "${iface}" not in available interfaces: "${Object.keys(all).join('", "')}"`;
}

const IFACE_PARAM = [{ name: 'iface', type: 'string', required: true, doc: 'interface name, e.g. eth0' }] as const;

function ipAddrsFunction(name: string): ModuleFunction {
  return defineFunction({
    name,
    doc: 'Return the IPv4 addresses of this minion, sorted; loopback excluded unless include_loopback=true.',
    params: IP_ADDRS_PARAMS,
    run: (_ctx, a) => ipAddrs(name, a.named.interface, a.named.include_loopback, a.named.cidr, a.named.type),
  });
}

export const networkFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'network.ping',
    doc: "Ping a host with the system's ping (-c 4) and return its output, or true/false with return_boolean=true.",
    params: [
      { name: 'host', type: 'string', required: true, doc: 'host name or address' },
      { name: 'timeout', type: 'any', default: false, doc: 'seconds to wait for each reply (ping -W); false for the ping default' },
      { name: 'return_boolean', type: 'bool', default: false, doc: 'return true if the host answered, else false' },
      { name: 'count', type: 'int', default: 4, keywordOnly: true, doc: 'number of echo requests (ping -c)' },
    ],
    run: (ctx, a) => ping(ctx, a.named.host, a.named.timeout, a.named.return_boolean, a.named.count),
  }),
  defineFunction({
    name: 'network.connect',
    doc: 'Test whether a TCP (or UDP) port on a host accepts a connection; returns {result, comment}.',
    params: [
      { name: 'host', type: 'string', required: true, doc: 'host name or address' },
      { name: 'port', type: 'int', required: true, doc: 'port number' },
      { name: 'proto', type: 'string', default: 'tcp', keywordOnly: true, doc: 'tcp or udp (udp counts as open only if the port answers)' },
      { name: 'timeout', type: 'number', default: 5, keywordOnly: true, doc: 'seconds to wait' },
      { name: 'family', type: 'string', keywordOnly: true, doc: 'ipv4 or ipv6 (default: either)' },
    ],
    run: (ctx, a) => connect(ctx, a.named.host, a.named.port, a.named.proto, a.named.timeout, a.named.family),
  }),
  defineFunction({
    name: 'network.interfaces',
    doc: 'Return every interface as {name: {up, hwaddr, inet: [{address, netmask, broadcast, label}], inet6: [{address, prefixlen, scope}]}}.',
    params: [],
    run: () => interfaces(),
  }),
  defineFunction({
    name: 'network.ip_in_subnet',
    doc: 'True when the IPv4 address is inside the CIDR network.',
    params: [
      { name: 'ip_addr', type: 'string', required: true },
      { name: 'cidr', type: 'string', required: true, doc: 'network/prefix, e.g. 10.0.0.0/8' },
    ],
    run: (_ctx, a) => inSubnet(a.named.cidr, a.named.ip_addr),
  }),
  defineFunction({
    name: 'network.calc_net',
    doc: "The IPv4 network of an address and netmask (or prefix) in CIDR form, e.g. '172.17.0.0/28'.",
    params: [
      { name: 'ip_addr', type: 'string', required: true, doc: 'an address, or address/prefix' },
      { name: 'netmask', type: 'string', doc: 'dotted netmask or prefix length' },
    ],
    run: (_ctx, a) => calcNet(a.named.ip_addr, a.named.netmask),
  }),
  defineFunction({
    name: 'network.interface',
    doc: "The IPv4 addresses of one interface as [{address, netmask, broadcast, label}] (Salt's 'inet'), or Salt's message when it does not exist.",
    params: IFACE_PARAM,
    run: (_ctx, a) => {
      const info = ifaceInfo(a.named.iface);
      return typeof info === 'string' ? info : (info.inet ?? '');
    },
  }),
  defineFunction({
    name: 'network.interface_ip',
    doc: "The first IPv4 address of one interface ('' when it has none), or Salt's message when it does not exist.",
    params: IFACE_PARAM,
    run: (_ctx, a) => {
      const info = ifaceInfo(a.named.iface);
      return typeof info === 'string' ? info : (info.inet?.[0]?.address ?? '');
    },
  }),
  defineFunction({
    name: 'network.hw_addr',
    doc: "The MAC address of one interface, or Salt's message when it does not exist.",
    params: IFACE_PARAM,
    run: (_ctx, a) => {
      const info = ifaceInfo(a.named.iface);
      return typeof info === 'string' ? info : (info.hwaddr ?? '');
    },
  }),
  ipAddrsFunction('network.ip_addrs'),
  ipAddrsFunction('network.ipaddrs'),
];
