// host.present / host.absent / host.only: names for addresses in the hosts file, with Salt's
// comments, changes and test-mode results (salt/states/host.py, 3007) over the file model of
// hosts-file.ts. The file is `hosts.file` from the minion config, /etc/hosts by default.

import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { addHost, hasPair, hostInfo, hostsFilename, isIpAddr, listHosts, rmHost, setComment, setHost } from './hosts-file.js';
import { failingSoftly, stateResult } from './state-result.js';

const asList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v === undefined || v === null ? [] : [String(v)]);

function present(ctx: StateContext, name: string, ips: string[], comment: string, clean: boolean): StateResult {
  const file = hostsFilename(ctx);
  const all = listHosts(file);
  const ret = stateResult(name, true, '');
  const comments: string[] = [];
  const toAdd: [string, string][] = ips.filter((a) => !all.has(a)).map((a) => [a, name]);
  const updateComment: [string, string][] = comment ? ips.filter((a) => !all.has(a)).map((a) => [a, comment]) : [];
  const toRemove: [string, string][] = [];
  for (const addr of all.keys()) {
    const info = hostInfo(all, addr);
    const has = info?.aliases.includes(name) ?? false;
    if (!ips.includes(addr)) {
      // Salt warns (in a `warnings` list) instead when clean is off; brine's results carry no warnings list.
      if (has && clean) toRemove.push([addr, name]);
    } else if (has) {
      if (comment && info?.comment !== comment) updateComment.push([addr, comment]);
      else comments.push(`Host ${name} (${addr}) already present`);
    } else if (isIpAddr(addr)) {
      toAdd.push([addr, name]);
      if (comment) updateComment.push([addr, comment]);
    } else {
      ret.result = false;
      comments.push(`Invalid IP Address for ${name} (${addr})`);
    }
  }
  const record = (key: string, addr: string, value: string) => {
    const group = (ret.changes[key] ?? {}) as Record<string, string[]>;
    group[addr] = [...(group[addr] ?? []), value];
    ret.changes[key] = group;
  };
  for (const [addr, host] of toAdd) {
    if (ctx.test) {
      ret.result = null;
      comments.push(`Host ${host} (${addr}) would be added`);
    } else {
      addHost(file, addr, host);
      comments.push(`Added host ${host} (${addr})`);
    }
    record('added', addr, host);
  }
  for (const [addr, text] of updateComment) {
    if (ctx.test) comments.push(`Comment for ${addr} (${text}) would be added`);
    else if (setComment(file, addr, text)) comments.push(`Set comment for host ${addr} (${text})`);
    else {
      ret.result = false;
      comments.push(`Failed to add comment for host ${addr} (${text})`);
      continue;
    }
    record('comment_added', addr, text);
  }
  for (const [addr, host] of toRemove) {
    if (ctx.test) {
      ret.result = null;
      comments.push(`Host ${host} (${addr}) would be removed`);
    } else {
      rmHost(file, addr, host);
      comments.push(`Removed host ${host} (${addr})`);
    }
    record('removed', addr, host);
  }
  return { ...ret, comment: comments.join('\n') };
}

function absent(ctx: StateContext, name: string, ips: string[]): StateResult {
  const file = hostsFilename(ctx);
  let ret = stateResult(name, null, '');
  const comments: string[] = [];
  for (const ip of ips) {
    if (!hasPair(file, ip, name)) {
      ret.result = true;
      comments.push(`Host ${name} (${ip}) already absent`);
    } else if (ctx.test) comments.push(`Host ${name} (${ip}) needs to be removed`);
    else {
      rmHost(file, ip, name);
      ret = { ...ret, changes: { host: name }, result: true };
      comments.push(`Removed host ${name} (${ip})`);
    }
  }
  return { ...ret, comment: comments.join('\n') };
}

function only(ctx: StateContext, name: string, hostnames: string[]): StateResult {
  const file = hostsFilename(ctx);
  const old = (hostInfo(listHosts(file), name)?.aliases ?? []).join(' ');
  const next = hostnames.map((h) => h.trim()).join(' ');
  if (old === next) return stateResult(name, true, `IP address ${name} already set to "${next}"`);
  if (ctx.test) return stateResult(name, null, `Would change ${name} from "${old}" to "${next}"`);
  setHost(file, name, next);
  return stateResult(name, true, `successfully changed ${name} from "${old}" to "${next}"`, { [name]: { old, new: next } });
}

const NAME = { name: 'name', type: 'string', required: true, doc: 'the host name' } as const;
const IP = { name: 'ip', type: 'any', required: true, doc: 'the address, or a list of addresses' } as const;

export const hostStates: readonly StateFunction[] = [
  defineState({
    name: 'host.present',
    doc: 'Make sure the hosts file (`hosts.file`, default /etc/hosts) maps a name to the given address(es).',
    params: [
      NAME,
      IP,
      { name: 'comment', type: 'string', default: '', doc: 'a comment for the address line (`# comment`)' },
      { name: 'clean', type: 'bool', default: false, doc: 'remove the name from addresses not listed in ip' },
    ],
    example: 'salt-master:\n  host.present:\n    - ip: 192.168.0.42\n    - comment: the master',
    run: async (ctx, a) => present(ctx, a.named.name, asList(a.named.ip), a.named.comment, a.named.clean),
  }),
  defineState({
    name: 'host.absent',
    doc: 'Make sure the hosts file does not map a name to the given address(es).',
    params: [NAME, IP],
    example: 'old-server:\n  host.absent:\n    - ip: 10.0.0.9',
    run: async (ctx, a) => absent(ctx, a.named.name, asList(a.named.ip)),
  }),
  defineState({
    name: 'host.only',
    doc: 'Make sure an address has exactly the given names, in order (an empty list removes its lines).',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'the IP address' },
      { name: 'hostnames', type: 'any', required: true, doc: 'a name or a list of names, in order' },
    ],
    example: '127.0.1.1:\n  host.only:\n    - hostnames:\n      - foo.example.com\n      - foo',
    run: async (ctx, a) => only(ctx, a.named.name, asList(a.named.hostnames)),
  }),
].map(failingSoftly);
