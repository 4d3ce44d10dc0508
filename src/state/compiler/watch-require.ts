// Salt 3007's State._reconcile_watch_req (salt/state.py, run by order_chunks on every compile):
// a state module without a mod_watch cannot act on a `watch`, so its `watch` becomes `require`
// (and `watch_any` becomes `require_any`), appended to the chunk's own list, or a new key
// written after `fun` (show_lowstate and show_low_sls print it there).

import type { LowChunk } from './high-types.js';

/**
 * The state modules of Salt 3007 that define mod_watch (salt/states/*.py: `def mod_watch` or a
 * `mod_watch = ` alias), by virtual name. Salt asks its loaded modules, so a module whose
 * __virtual__ fails on a host (docker_container without the docker library) converts there.
 */
const SALT_MOD_WATCH: ReadonlySet<string> = new Set([
  'at',
  'cmd',
  'docker_container',
  'docker_image',
  'etcd',
  'event',
  'kernelpkg',
  'module',
  'mount',
  'pkg',
  'service',
  'supervisord',
  'test',
  'tomcat',
]);

const PAIRS: ReadonlyArray<[watch: string, require: string]> = [
  ['watch', 'require'],
  ['watch_any', 'require_any'],
];

/** Keys this stage added to a chunk; Salt's dict has them after `fun`. */
const afterFun = new WeakMap<object, string[]>();

/** The keys of `chunk` Salt writes after `fun` (see reconcileWatch). */
export function keysAfterFun(chunk: object): readonly string[] {
  return afterFun.get(chunk) ?? [];
}

/** Whether a state module has a mod_watch: Salt's (above) or one of `modWatch` (this run's). */
export function hasModWatch(state: string, modWatch: ReadonlySet<string>): boolean {
  return SALT_MOD_WATCH.has(state) || modWatch.has(state);
}

/**
 * Rewrites, in place, the watch requisites of chunks whose module has no mod_watch. `modWatch`
 * names modules of this run that have one besides Salt's (custom states with a mod_watch).
 */
export function reconcileWatch(chunks: LowChunk[], modWatch: ReadonlySet<string>): void {
  for (const c of chunks) {
    if (hasModWatch(c.state, modWatch)) continue;
    for (const [w, r] of PAIRS) {
      const watched = c[w];
      if (watched === undefined) continue;
      delete c[w];
      const entries = Array.isArray(watched) ? watched : [watched];
      if (Array.isArray(c[r])) {
        c[r] = [...(c[r] as unknown[]), ...entries];
      } else {
        c[r] = entries;
        afterFun.set(c, [...keysAfterFun(c), r]);
      }
    }
  }
}
