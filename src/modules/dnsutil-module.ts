// dnsutil.A and dnsutil.AAAA as Salt 3007 answers them (salt/modules/dnsutil.py): through
// `dig +short` when dig is installed (salt/modules/dig.py: [] when dig fails, only the lines
// that are addresses), else through the system resolver (getaddrinfo) when no nameserver is given.

import { lookup } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';
import { BrineError } from '../util/errors.js';
import { checkName, runArgv, which } from './host-tools.js';
import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';

// host names and addresses; never a leading '-' (dig would read an option)
const HOST = /^[A-Za-z0-9_.:][A-Za-z0-9_.:-]*$/;

async function resolve(fun: string, host: string, nameserver: string | undefined, family: 4 | 6, signal: AbortSignal): Promise<string[] | string> {
  checkName(fun, 'host', host, HOST);
  if (nameserver !== undefined) checkName(fun, 'nameserver', nameserver, HOST);
  const isAddr = family === 4 ? isIPv4 : isIPv6;
  if (which('dig')) {
    const argv = ['dig', '+short', host, family === 4 ? 'A' : 'AAAA', ...(nameserver !== undefined ? [`@${nameserver}`] : [])];
    const r = await runArgv(fun, argv, { signal });
    if (r.retcode !== 0) return [];
    return r.stdout.split('\n').filter((l) => isAddr(l.trim()));
  }
  if (nameserver !== undefined) return 'This function requires dig, which is not currently available';
  try {
    const found = await lookup(host, { family, all: true });
    return found.map((a) => a.address);
  } catch {
    return `Unable to resolve ${host}`;
  }
}

function record(name: string, family: 4 | 6): ModuleFunction {
  return defineFunction({
    name,
    doc: `Return the ${family === 4 ? 'IPv4 (A)' : 'IPv6 (AAAA)'} addresses of a host: a list, or Salt's message when it cannot resolve.`,
    params: [
      { name: 'host', type: 'string', required: true, doc: 'the name to look up' },
      { name: 'nameserver', type: 'string', doc: 'ask this server (needs dig)' },
    ],
    run: (ctx, a) => resolve(name, a.named.host, a.named.nameserver, family, ctx.signal),
  });
}

/** dig.A / dig.AAAA (salt/modules/dig.py): the same dig query; Salt loads the module only where dig is installed. */
function digRecord(name: string, family: 4 | 6): ModuleFunction {
  return defineFunction({
    name,
    doc: `Return the ${family === 4 ? 'IPv4 (A)' : 'IPv6 (AAAA)'} addresses of a host from dig +short ([] when dig fails); needs dig.`,
    params: [
      { name: 'host', type: 'string', required: true, doc: 'the name to look up' },
      { name: 'nameserver', type: 'string', doc: 'ask this server' },
    ],
    run: (ctx, a) => {
      if (!which('dig'))
        throw new BrineError(
          'EXEC_FAILED',
          `${name}: the dig program is not installed, so Salt's dig module is not available here either; install it (Debian: bind9-dnsutils) or use dnsutil.${family === 4 ? 'A' : 'AAAA'}`,
        );
      return resolve(name, a.named.host, a.named.nameserver, family, ctx.signal);
    },
  });
}

export const dnsutilFunctions: readonly ModuleFunction[] = [record('dnsutil.A', 4), record('dnsutil.AAAA', 6), digRecord('dig.A', 4), digRecord('dig.AAAA', 6)];
