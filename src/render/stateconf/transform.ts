// The high-data rewrites of Salt's stateconf renderer (salt/renderers/stateconf.py): relative
// includes/excludes, `.id` renaming to `<sls>::id`, the generated `.start`/`.goal` states, the
// `-o` implicit requires and the extraction of `stateconf.set` arguments. Pure functions over the
// rendered data (plain objects, whose key order is the file's order, as Salt's ordered dicts).

import { BrineError } from '../../util/errors.js';

export type High = Record<string, unknown>;
type Mapping = Record<string, unknown>;

/** Salt's stateconf_state_func, stateconf_start_state and stateconf_goal_state defaults. */
export const STATE_FUNC = 'stateconf.set';
export const STATE_NAME = 'stateconf';
const REQUISITES = new Set(['require', 'require_in', 'watch', 'watch_in', 'use', 'use_in', 'listen', 'listen_in']);
const REQUIRE = new Set(['require', 'watch', 'listen']);
const REQUIRE_IN = new Set(['require_in', 'watch_in', 'listen_in']);

/** What one run's stateconf renders share, as Salt's module-level STATE_CONF / STATE_CONF_EXT / EXTENDED_REQUIRE*. */
export interface StateconfMemory {
  conf: Map<string, Mapping>;
  confExt: Map<string, Mapping>;
  extendedRequire: Map<string, Array<[string, string]>>;
  extendedRequireIn: Map<string, Array<[string, string]>>;
}

export function newStateconfMemory(): StateconfMemory {
  return { conf: new Map(), confExt: new Map(), extendedRequire: new Map(), extendedRequireIn: new Map() };
}

function fail(source: string, message: string): never {
  throw new BrineError('RENDER_FAILED', `${source}: stateconf: ${message}`, { details: { file: source } });
}

const isMapping = (v: unknown): v is Mapping => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `pkg.installed` -> `pkg` (Salt's state_name). */
const stateName = (sname: string): string => sname.split('.', 1)[0]!;

/** The single-key mappings of an argument list, optionally only those named (Salt's nvlist). */
function* nvlist(list: unknown, names?: ReadonlySet<string>): Generator<[Mapping, string, unknown]> {
  if (!Array.isArray(list)) return;
  for (const item of list) {
    if (!isMapping(item)) continue;
    const key = Object.keys(item)[0];
    if (key === undefined) continue;
    if (!names || names.has(key)) yield [item, key, item[key]];
  }
}

/** nvlist applied to the values of the named arguments: each `{state: id}` of a requisite list. */
function* nvlist2(list: unknown, names: ReadonlySet<string>): Generator<[Mapping, string, unknown]> {
  for (const [, , value] of nvlist(list, names)) yield* nvlist(value);
}

/** Every (id, state declaration, argument list) of the data, skipping `__x` keys and the given ids (Salt's statelist). */
function* statelist(data: High, excludes: ReadonlySet<string> = new Set(['include', 'exclude'])): Generator<[string, Mapping, string, unknown]> {
  for (const [sid, states] of Object.entries(data)) {
    if (sid.startsWith('__') || excludes.has(sid) || !isMapping(states)) continue;
    for (const [sname, args] of Object.entries(states)) {
      if (sname.startsWith('__')) continue;
      yield [sid, states, sname, args];
    }
  }
}

/** `.x` / `..x` relative to `sls`'s package: Salt's _relative_to_abs_sls (no init.sls rule here). */
export function relativeToAbsSls(relative: string, sls: string, source: string): string {
  const m = /^(\.+)(.*)$/s.exec(relative);
  if (!m) return relative;
  const comps = sls.split('.');
  if (m[1]!.length > comps.length) fail(source, 'Attempted relative include goes beyond top level package');
  return [...comps.slice(0, comps.length - m[1]!.length), m[2]!].join('.');
}

/** `.vim` in SLS `some.file` -> `some.file::vim`; `.other::x` -> `some.other::x` (Salt's _local_to_abs_sid). */
export function localToAbsSid(sid: string, sls: string, source: string): string {
  if (sid.includes('::')) return relativeToAbsSls(sid, sls, source);
  const abs = relativeToAbsSls(sid, `${sls}.`, source);
  const i = abs.lastIndexOf('.');
  return `${abs.slice(0, i)}::${abs.slice(i + 1)}`;
}

/** `id: pkg.installed` -> `id: {pkg.installed: []}`. */
export function rewriteShorthand(data: High): void {
  for (const [sid, states] of Object.entries(data)) if (typeof states === 'string') data[sid] = { [states]: [] };
}

/** Relative `include` entries become `{saltenv: absolute}` and relative `exclude: [{sls: .x}]` absolute. */
export function rewriteIncludesExcludes(data: High, sls: string, saltenv: string, source: string): void {
  const includes = data.include;
  if (Array.isArray(includes)) {
    includes.forEach((each, i) => {
      let env = saltenv;
      let incl: unknown = each;
      if (isMapping(each)) [env, incl] = Object.entries(each)[0] ?? [saltenv, undefined];
      if (typeof incl === 'string' && incl.startsWith('.')) includes[i] = { [env]: relativeToAbsSls(incl, sls, source) };
    });
  }
  if (Array.isArray(data.exclude)) {
    for (const ex of data.exclude) if (isMapping(ex) && typeof ex.sls === 'string' && ex.sls.startsWith('.')) ex.sls = relativeToAbsSls(ex.sls, sls, source);
  }
}

/** The first ID with a `names` argument (refused with `-o`). */
export function firstNamesDecl(data: High): string | undefined {
  for (const [sid, , , args] of statelist(data)) {
    if (sid === 'extend') continue;
    for (const _ of nvlist(args, new Set(['names']))) return sid;
  }
  return undefined;
}

/** `-o`: each state requires the one defined before it; explicit requisites may only point backwards (require) or forwards (require_in). */
export function addImplicitRequires(data: High, mem: StateconfMemory, source: string): void {
  const tag = (sid: string, state: string): string => `${sid}:${stateName(state)}`;
  const before = new Set<string>();
  const after = new Set<string>();
  for (const [sid, states] of Object.entries(data)) if (isMapping(states)) for (const state of Object.keys(states)) after.add(tag(sid, state));
  let prev: [string, string] | undefined;
  for (const [sid, states, sname, args] of statelist(data)) {
    if (sid === 'extend') {
      for (const [esid, , , eargs] of statelist(states)) {
        for (const [, rstate, rsid] of nvlist2(eargs, REQUIRE)) pushTo(mem.extendedRequire, tag(esid, rstate), [rstate, String(rsid)]);
        for (const [, rstate, rsid] of nvlist2(eargs, REQUIRE_IN)) pushTo(mem.extendedRequireIn, tag(esid, rstate), [rstate, String(rsid)]);
      }
      continue;
    }
    const t = tag(sid, sname);
    after.delete(t);
    const reqs = [...[...nvlist2(args, REQUIRE)].map(([, s, id]): [string, string] => [s, String(id)]), ...(mem.extendedRequire.get(t) ?? [])];
    for (const [rstate, rsid] of reqs) {
      if (after.has(tag(rsid, rstate))) fail(source, `State(${t}) can't require/watch/listen a state(${tag(rsid, rstate)}) defined after it!`);
    }
    const reqIns = [...[...nvlist2(args, REQUIRE_IN)].map(([, s, id]): [string, string] => [s, String(id)]), ...(mem.extendedRequireIn.get(t) ?? [])];
    for (const [rstate, rsid] of reqIns) {
      if (before.has(tag(rsid, rstate))) fail(source, `State(${t}) can't require_in/watch_in/listen_in a state(${tag(rsid, rstate)}) defined before it!`);
    }
    if (prev) {
      const existing = nvlist(args, new Set(['require'])).next();
      if (!existing.done && Array.isArray(existing.value[2])) existing.value[2].unshift({ [prev[0]]: prev[1] });
      else if (Array.isArray(args)) args.push({ require: [{ [prev[0]]: prev[1] }] });
    }
    before.add(t);
    prev = [stateName(sname), sid];
  }
}

function pushTo(map: Map<string, Array<[string, string]>>, key: string, value: [string, string]): void {
  const list = map.get(key) ?? [];
  list.push(value);
  map.set(key, list);
}

/** `-s`: a `.start` stateconf.set state that is require_in'd by the first state of the file. */
export function addStartState(data: High, sls: string, source: string, startSid: string): void {
  if (startSid in data) fail(source, `Can't generate start state(${startSid})! The same state id already exists!`);
  if (Object.keys(data).length === 0) return;
  const skip = new Set(['include', 'exclude', 'extend']);
  const first = Object.entries(data).find(([sid, states]) => !skip.has(sid) && !sid.startsWith('__') && isMapping(states) && (!('__sls__' in states) || states.__sls__ === sls));
  if (!first) fail(source, "Can't determine the first state in the sls file!");
  const firstState = Object.keys(first[1] as Mapping)[0] ?? '';
  data[startSid] = { [STATE_FUNC]: [{ require_in: [{ [stateName(firstState)]: first[0] }] }] };
}

/** The `.goal` stateconf.set state requiring every state of the file (unless `-G`). */
export function addGoalState(data: High, source: string, goalSid: string): void {
  if (goalSid in data) fail(source, `Can't generate goal state(${goalSid})! The same state id already exists!`);
  const require: Mapping[] = [];
  for (const [sid, states, state] of statelist(data, new Set(['include', 'exclude', 'extend']))) {
    if ('__sls__' in states) continue;
    require.push({ [stateName(state)]: sid });
  }
  data[goalSid] = { [STATE_FUNC]: [{ require }] };
}

/** Renames `.id` declarations and requisite references; a renamed state without `name` gets `name: id`. Renamed IDs move after the others, as in Salt. */
export function renameStateIds(data: High, sls: string, source: string, isExtend = false): High {
  if (!isExtend && isMapping(data.extend)) data.extend = renameStateIds(data.extend, sls, source, true);
  for (const [, , , args] of statelist(data)) {
    for (const [req, sname, sid] of nvlist2(args, REQUISITES)) {
      if (typeof sid === 'string' && sid.startsWith('.')) req[sname] = localToAbsSid(sid, sls, source);
    }
  }
  const kept: High = {};
  const renamed: High = {};
  for (const [sid, states] of Object.entries(data)) {
    if (!sid.startsWith('.')) {
      kept[sid] = states;
      continue;
    }
    const newsid = localToAbsSid(sid, sls, source);
    if (newsid in data || newsid in renamed) fail(source, `Can't rename state id(${sid}) into ${newsid} because the later already exists!`);
    if (isMapping(states)) {
      for (const [sname, args] of Object.entries(states)) {
        if (stateName(sname) === STATE_NAME || sname.startsWith('__')) continue;
        if (!Array.isArray(args)) fail(source, `state '${sname}' of ID '${sid}' has no argument list`);
        if (!args.some((a) => isMapping(a) && Object.keys(a)[0] === 'name')) args.unshift({ name: sid.slice(1) });
      }
    }
    renamed[newsid] = states;
  }
  return { ...kept, ...renamed };
}

/** Collects the arguments of `stateconf.set` states (and of those under `extend`) into the run's memory. */
export function extractStateConfs(data: High, mem: StateconfMemory, isExtend = false): void {
  for (const [sid, states] of Object.entries(data)) {
    if (sid === 'extend' && !isExtend) {
      if (isMapping(states)) extractStateConfs(states, mem, true);
      continue;
    }
    if (!isMapping(states)) continue;
    const key = STATE_NAME in states ? STATE_NAME : STATE_FUNC in states ? STATE_FUNC : undefined;
    if (key === undefined) continue;
    const to = isExtend ? mem.confExt : mem.conf;
    const conf = to.get(sid) ?? {};
    to.set(sid, conf);
    for (const [, k, v] of nvlist(states[key])) conf[k] = v;
    const ext = isExtend ? undefined : mem.confExt.get(sid);
    if (ext) {
      // an including file's `extend` of this stateconf.set wins; its requisites add to ours
      for (const requisite of ['require', 'watch', 'listen']) {
        if (Array.isArray(ext[requisite])) ext[requisite] = [...ext[requisite], ...(Array.isArray(conf[requisite]) ? conf[requisite] : [])];
      }
      Object.assign(conf, ext);
    }
  }
}
