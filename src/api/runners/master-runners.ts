// Salt's runners that act on the master itself: event.send (the master's bus), fileserver.*
// (its file server), cache.* (its cached grains, pillar and mine), saltutil.sync_* (brine's
// master loads no extension modules: Salt's answer shape, nothing synced, a warning naming the
// files it ignores), test.* and salt.cmd (an execution function run on the master).

import { BrineError } from '../../util/errors.js';
import type { RunnerBackend, RunnerHost } from '../backend.js';
import { listParam, param, type RunnerCall } from '../runner-call.js';

type Runner = (b: RunnerBackend, c: RunnerCall) => unknown;

/** The master side, which only the master's own backend has (`brine api` sends runners to the master). */
export function hostOf(b: RunnerBackend, fun: string): RunnerHost {
  if (b.runnerHost === undefined) throw new BrineError('RUNNER_UNAVAILABLE', `${fun} runs in the master; call it through the master (brine runner, or the API's runner client)`);
  return b.runnerHost;
}

/** Salt's sync_all keys, in its order. */
const SYNC_KINDS = [
  'clouds',
  'modules',
  'states',
  'grains',
  'renderers',
  'returners',
  'output',
  'proxymodules',
  'runners',
  'wheel',
  'engines',
  'thorium',
  'queues',
  'pillar',
  'utils',
  'sdb',
  'cache',
  'fileserver',
  'tops',
  'tokens',
  'serializers',
  'executors',
  'roster',
] as const;
/** The file_roots folder of each kind where it differs from `_<kind>`. */
const SYNC_DIRS: Partial<Record<(typeof SYNC_KINDS)[number], string>> = { output: '_output', tokens: '_tokens' };

function saltenvOf(c: RunnerCall): string {
  const env = param(c, 'saltenv', 0) ?? 'base';
  if (typeof env !== 'string' || env === '') throw new BrineError('BAD_ARGUMENTS', 'saltenv must be an environment name such as base');
  return env;
}

/** A sync runner: nothing is synced into the master; the files it ignores are logged once per call. */
function syncRunner(kinds: ReadonlyArray<(typeof SYNC_KINDS)[number]>, all: boolean): Runner {
  return (b, c) => {
    const host = hostOf(b, 'saltutil.sync_*');
    const files = host.fileList(saltenvOf(c));
    const ignored = kinds.flatMap((k) => files.filter((f) => f.startsWith(`${SYNC_DIRS[k] ?? `_${k}`}/`)));
    if (ignored.length > 0) {
      b.logger.warn(
        { ignored: ignored.slice(0, 50) },
        `saltutil.sync_* on the master: brine's master loads no extension modules, so ${ignored.length} file(s) are not synced (${ignored.slice(0, 5).join(', ')}); minions sync their own with saltutil.sync_all`,
      );
    }
    if (all) return Object.fromEntries(kinds.map((k) => [k, []]));
    return [];
  };
}

function cacheTarget(c: RunnerCall, fun: string, required: boolean): { tgt: string | string[]; tgtType: string } {
  const tgt = param(c, 'tgt', 0) ?? (required ? undefined : '*');
  const tgtType = param(c, 'tgt_type', 1) ?? 'glob';
  if (!(typeof tgt === 'string' || (Array.isArray(tgt) && tgt.every((t) => typeof t === 'string'))))
    throw new BrineError('BAD_ARGUMENTS', `${fun}: give tgt, the minions whose cached data to show (e.g. tgt='*')`);
  if (typeof tgtType !== 'string') throw new BrineError('BAD_ARGUMENTS', `${fun}: tgt_type must be a string`);
  return { tgt: tgt as string | string[], tgtType };
}

function cacheRunner(fun: string, required: boolean, read: (b: RunnerBackend, host: RunnerHost, id: string) => Record<string, unknown> | undefined): Runner {
  return async (b, c) => {
    const host = hostOf(b, fun);
    const { tgt, tgtType } = cacheTarget(c, fun, required);
    const out: Record<string, unknown> = {};
    for (const id of (await b.matchTarget(tgt, tgtType)).matched) {
      const data = read(b, host, id);
      if (data !== undefined) out[id] = data;
    }
    return out;
  };
}

export const MASTER_RUNNERS: ReadonlyArray<[string, Runner]> = [
  [
    'event.send',
    (b, c) => {
      const tag = param(c, 'tag', 0);
      const data = param(c, 'data', 1) ?? {};
      if (typeof tag !== 'string' || tag === '') throw new BrineError('BAD_ARGUMENTS', "event.send: give the event's tag, e.g. brine runner event.send my/event data='{\"foo\": 1}'");
      if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new BrineError('BAD_ARGUMENTS', 'event.send: data must be a mapping');
      hostOf(b, 'event.send').fire(tag, data as Record<string, unknown>);
      return true;
    },
  ],
  [
    'fileserver.file_list',
    (b, c) => {
      const backends = listParam(param(c, 'backend', 1));
      return hostOf(b, 'fileserver.file_list').fileList(saltenvOf(c), backends);
    },
  ],
  [
    'fileserver.update',
    async (b, c) => {
      const backends = listParam(param(c, 'backend', 0)) ?? [undefined];
      const host = hostOf(b, 'fileserver.update');
      const failed: string[] = [];
      for (const backend of backends) for (const r of await host.fileserverUpdate(backend)) if (!r.ok) failed.push(`${r.remote}: ${r.error ?? 'failed'}`);
      if (failed.length > 0) throw new BrineError('GITFS_REMOTE_UNREACHABLE', `fileserver.update: ${failed.length} remote(s) could not be fetched (${failed.join('; ')})`);
      return true;
    },
  ],
  ['cache.grains', cacheRunner('cache.grains', true, (b, _h, id) => b.grainsOf(id))],
  ['cache.pillar', cacheRunner('cache.pillar', false, (_b, h, id) => h.pillarOf(id))],
  ['cache.mine', cacheRunner('cache.mine', false, (_b, h, id) => h.mineOf(id))],
  ['saltutil.sync_all', syncRunner(SYNC_KINDS, true)],
  ...SYNC_KINDS.map((k): [string, Runner] => [`saltutil.sync_${k === 'tokens' ? 'eauth_tokens' : k}`, syncRunner([k], false)]),
  ['test.arg', (_b, c) => ({ args: [...c.arg], kwargs: Object.fromEntries(Object.entries(c.kwarg).filter(([k]) => !k.startsWith('__'))) })],
  [
    'test.sleep',
    async (b, c) => {
      const s = Number(param(c, 's_time', 0) ?? 10);
      if (!Number.isFinite(s) || s < 0 || s > 86_400) throw new BrineError('BAD_ARGUMENTS', 'test.sleep: s_time must be a number of seconds from 0 to 86400');
      await new Promise<void>((resolve) => b.clock.setTimeout(resolve, s * 1000));
      return true;
    },
  ],
  [
    'salt.cmd',
    async (b, c) => {
      const [fun, ...arg] = c.arg;
      const name = param(c, 'fun', 0);
      if (typeof name !== 'string' || name === '') throw new BrineError('BAD_ARGUMENTS', 'salt.cmd: give the execution function to run on the master, e.g. brine runner salt.cmd test.ping');
      const host = hostOf(b, 'salt.cmd');
      if (host.localCall === undefined) throw new BrineError('RUNNER_UNAVAILABLE', 'salt.cmd: this master runs no execution functions itself; run the function on a minion with brine run');
      const { fun: _f, ...kwarg } = c.kwarg;
      return host.localCall(name, typeof fun === 'string' && name === fun ? arg : c.arg, kwarg);
    },
  ],
];
