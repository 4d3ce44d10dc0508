// Salt's manage runner: status/up/down ping the minions a target matches (test.ping, `timeout`)
// as Salt does; present/not_present/alived/joined come from presence without sending anything
// (brine's live sessions are Salt's presence detection), with `subset` (a CIDR) and `show_ip`;
// versions asks test.version. manage.presence and manage.match are brine's, for the web view.

import { inNetwork, parseIpAddress, parseIpNetwork } from '../../targeting/ip-address.js';
import { BrineError } from '../../util/errors.js';
import type { RunnerBackend } from '../backend.js';
import { boolParam, param, type RunnerCall } from '../runner-call.js';
import { fleetCall } from './fleet-call.js';

type Runner = (b: RunnerBackend, c: RunnerCall) => unknown;

/** manage.presence: every minion's session info, and each pending key as state `pending`, by ID (also GET /fleet/presence). */
export async function presenceWithPending(b: Pick<RunnerBackend, 'presence' | 'keys'>) {
  const list = await b.presence();
  const listed = new Set(list.map((s) => s.id));
  for (const id of b.keys.list('pending')) if (!listed.has(id)) list.push({ id, state: 'pending', reconnects: 0 });
  return list.sort((x, y) => x.id.localeCompare(y.id));
}

function targetOf(c: RunnerCall, fun: string, tgtIndex: number): { tgt: string | string[]; tgtType: string; timeout?: number } {
  const tgt = param(c, 'tgt', tgtIndex) ?? '*';
  const tgtType = param(c, 'tgt_type', tgtIndex + 1) ?? 'glob';
  const timeout = param(c, 'timeout', tgtIndex + 2) ?? c.timeout;
  if (!(typeof tgt === 'string' || (Array.isArray(tgt) && tgt.every((t) => typeof t === 'string')))) throw new BrineError('BAD_ARGUMENTS', `${fun}: tgt must be a target expression`);
  if (typeof tgtType !== 'string') throw new BrineError('BAD_ARGUMENTS', `${fun}: tgt_type must be a string`);
  if (timeout !== undefined && timeout !== null && !(Number(timeout) >= 0)) throw new BrineError('BAD_ARGUMENTS', `${fun}: timeout must be a number of seconds`);
  return { tgt: tgt as string | string[], tgtType, ...(timeout === undefined || timeout === null ? {} : { timeout: Number(timeout) }) };
}

/** Salt's _ping: the minions that answered test.ping, and those that did not. */
async function status(b: RunnerBackend, c: RunnerCall, fun: string, tgtIndex: number): Promise<{ up: string[]; down: string[] }> {
  const { minions, returns } = await fleetCall(b, { ...targetOf(c, fun, tgtIndex), fun: 'test.ping', user: c.user ?? 'root' });
  const up = minions.filter((m) => returns.get(m)?.ret === true).sort();
  const answered = new Set(up);
  return { up, down: minions.filter((m) => !answered.has(m)).sort() };
}

/** The connected minions (and their addresses), or the accepted ones that are not connected. */
async function listState(b: RunnerBackend, c: RunnerCall, fun: string, connected: boolean): Promise<string[] | Record<string, string>> {
  const subset = param(c, 'subset', 0);
  const showIp = boolParam(c, 'show_ip', 1, false);
  let net: ReturnType<typeof parseIpNetwork> | undefined;
  if (subset !== undefined && subset !== null && subset !== '') {
    net = parseIpNetwork(String(subset));
    if ('problem' in net) throw new BrineError('BAD_ARGUMENTS', `${fun}: subset must be a CIDR network such as 10.0.0.0/8 (${net.problem})`);
  }
  const sessions = (await b.presence()).filter((s) => s.state === 'connected');
  const ipOf = new Map(sessions.map((s) => [s.id, hostOf(s.remote ?? '')]));
  let ids: string[];
  if (connected) ids = sessions.map((s) => s.id);
  else ids = b.keys.list('accepted').filter((id) => !ipOf.has(id));
  if (net !== undefined && 'network' in net) {
    const network = net.network;
    ids = ids.filter((id) => {
      const a = parseIpAddress(ipOf.get(id) ?? '');
      return a !== undefined && inNetwork(a, network);
    });
  }
  ids.sort();
  if (!showIp) return ids;
  return Object.fromEntries(ids.map((id) => [id, ipOf.get(id) ?? '']));
}

/** The address of `host:port` or `[v6]:port`. */
function hostOf(remote: string): string {
  const v6 = /^\[([^\]]+)\]:\d+$/.exec(remote);
  if (v6) return v6[1] as string;
  const i = remote.lastIndexOf(':');
  const host = i > 0 && remote.indexOf(':') === i ? remote.slice(0, i) : remote;
  return host.startsWith('::ffff:') ? host.slice(7) : host;
}

/** Salt's manage.versions labels, by how each minion's version compares to the master's. */
async function versions(b: RunnerBackend, c: RunnerCall): Promise<Record<string, unknown>> {
  const master = b.runnerHost?.version ?? '';
  const { minions, returns } = await fleetCall(b, { tgt: '*', tgtType: 'glob', fun: 'test.version', user: c.user ?? 'root', ...(c.timeout === undefined ? {} : { timeout: c.timeout }) });
  const groups: Record<string, Record<string, string | false>> = {};
  for (const m of [...minions].sort()) {
    const r = returns.get(m);
    const v = r !== undefined && r.retcode === 0 && typeof r.ret === 'string' ? r.ret : undefined;
    const label = v === undefined ? 'Minion offline' : compareVersions(v, master) < 0 ? 'Minion requires update' : compareVersions(v, master) > 0 ? 'Minion newer than master' : 'Up to date';
    const group = groups[label] ?? {};
    group[m] = v ?? false;
    groups[label] = group;
  }
  return { ...groups, Master: master };
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

export const MANAGE_RUNNERS: ReadonlyArray<[string, Runner]> = [
  ['manage.status', (b, c) => status(b, c, 'manage.status', 1)],
  ['manage.up', async (b, c) => (await status(b, c, 'manage.up', 0)).up],
  [
    'manage.down',
    async (b, c) => {
      const down = (await status(b, c, 'manage.down', 1)).down;
      // removekeys=True deletes the keys of the down minions, as Salt's wheel key.delete does
      if (boolParam(c, 'removekeys', 0, false) && down.length > 0) {
        for (const id of down) b.keys.remove(id, 'accepted');
        await b.reconcileKeys();
      }
      return down;
    },
  ],
  ['manage.present', (b, c) => listState(b, c, 'manage.present', true)],
  ['manage.alived', (b, c) => listState(b, c, 'manage.alived', true)],
  ['manage.joined', (b, c) => listState(b, c, 'manage.joined', true)],
  ['manage.not_present', (b, c) => listState(b, c, 'manage.not_present', false)],
  ['manage.not_alived', (b, c) => listState(b, c, 'manage.not_alived', false)],
  ['manage.not_joined', (b, c) => listState(b, c, 'manage.not_joined', false)],
  ['manage.versions', versions],
  ['manage.presence', (b) => presenceWithPending(b)],
  [
    'manage.match',
    async (b, c) => {
      const tgt = param(c, 'tgt', 0);
      const tgtType = param(c, 'tgt_type', 1) ?? 'glob';
      if (!(typeof tgt === 'string' || (Array.isArray(tgt) && tgt.every((t) => typeof t === 'string')))) throw new BrineError('BAD_ARGUMENTS', 'manage.match: tgt must be a target expression');
      if (typeof tgtType !== 'string') throw new BrineError('BAD_ARGUMENTS', 'manage.match: tgt_type must be a string');
      const { matched, missing } = await b.matchTarget(tgt as string | string[], tgtType);
      const connected = new Set((await b.presence()).filter((s) => s.state === 'connected').map((s) => s.id));
      return { minions: matched, not_connected: matched.filter((m) => !connected.has(m)), missing };
    },
  ],
];
