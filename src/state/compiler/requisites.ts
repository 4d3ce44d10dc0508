// Stage "requisites": resolves every requisite of every chunk to the chunks it names, in each
// Salt form (`- pkg: nginx`, `- nginx`, `- sls: web`, `- id: x`, globs), inverts the `_in`
// forms (requisite-in.ts: Salt finds their targets its own way), and applies `use`/`use_in`
// (copying arguments). A reference that names no state is a compile error.

import { globToRegExp } from '../../targeting/index.js';
import { compileError, type CompileError, type LowChunk } from './high-types.js';
import { requisiteInTargets } from './requisite-in.js';
import { hasModWatch } from './watch-require.js';
import { ANY_KINDS, isFunctionArg, REQUISITE_KINDS, type RequisiteKind, UNORDERED_KINDS } from './requisite-kinds.js';

/** One edge: this chunk has requisite `kind` on chunk `target` (an index into the chunk list). */
export interface Requisite {
  kind: RequisiteKind;
  target: number;
}

interface Ref {
  state: string | undefined;
  value: string;
}

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

const where = (c: LowChunk): string => `${c.__sls__}:${c.__id__}`;
const describe = (c: LowChunk): string => `state [${c.name}] in SLS [${c.__sls__}]`;
const refText = (key: string, r: Ref): string => (r.state === undefined ? `${key}: ${r.value}` : `${key}: (${r.state}: ${r.value})`);

function parseRefs(key: string, raw: unknown, c: LowChunk, errors: CompileError[]): Ref[] {
  if (!Array.isArray(raw)) {
    errors.push(compileError(`The ${key} statement in state '${c.__id__}' in SLS '${c.__sls__}' needs to be formed as a list`, where(c)));
    return [];
  }
  const out: Ref[] = [];
  for (const item of raw) {
    if (typeof item === 'string' || typeof item === 'number') out.push({ state: undefined, value: String(item) });
    else if (isMapping(item) && Object.keys(item).length === 1 && ['string', 'number'].includes(typeof Object.values(item)[0])) {
      const [state, value] = Object.entries(item)[0]!;
      out.push({ state, value: String(value) });
    } else {
      errors.push(
        compileError(`Requisite declaration ${key} in state '${c.__id__}' in SLS '${c.__sls__}' is not formed as a single key dictionary or a state name: ${JSON.stringify(item)}`, where(c)),
      );
    }
  }
  return out;
}

/** A predicate for the chunks a reference names (fnmatch globs as Salt; exact names compare directly). */
function matcherFor(ref: Ref): (c: LowChunk) => boolean {
  const re = /[*?[]/.test(ref.value) ? globToRegExp(ref.value) : undefined;
  const m = (s: string): boolean => s === ref.value || re?.test(s) === true;
  // Salt 3007 (DependencyGraph.add_chunk): an SLS also names the states its includes brought in,
  // so `require: - sls: a` waits for an SLS that only includes others
  if (ref.state === 'sls') return (c) => m(c.__sls__) || (Array.isArray(c.__sls_included_from__) && c.__sls_included_from__.some((s) => typeof s === 'string' && m(s)));
  if (ref.state === 'id') return (c) => m(c.__id__) || m(c.name);
  return (c) => (ref.state === undefined || ref.state === c.state) && (m(c.__id__) || m(c.name));
}

/** The `_in` forms Salt's requisite_in turns into high data (use_in and listen_in it handles elsewhere). */
const IN_BY_HIGH_DATA: ReadonlySet<RequisiteKind> = new Set(['require', 'watch', 'onfail', 'onchanges', 'prereq']);

/**
 * The resolved requisites of each chunk (same indexes as `chunks`); `use` applied to the chunks.
 * `requisiteIn: false` reads only the forward requisites, as Salt's DependencyGraph does on data
 * requisite_in has not rewritten (state.show_low_sls): `_in`, `use` and `listen` stay plain
 * arguments (the graph has no edge for them, so a missing target is no error there).
 */
export function resolveRequisites(chunks: LowChunk[], opts: { requisiteIn?: boolean; modWatch?: ReadonlySet<string> } = {}): { reqs: Requisite[][]; errors: CompileError[] } {
  const requisiteIn = opts.requisiteIn !== false;
  const modWatch = opts.modWatch ?? new Set<string>();
  const errors: CompileError[] = [];
  const reqs: Requisite[][] = chunks.map(() => []);
  const uses: Array<[to: number, from: number]> = [];
  // exact references (the common case) are looked up, not scanned: big trees have one per state
  const index = new Map<string, number[]>();
  const put = (k: string, i: number): void => {
    const list = index.get(k);
    if (!list) index.set(k, [i]);
    else if (list.at(-1) !== i) list.push(i);
  };
  chunks.forEach((c, i) => {
    put(`id\0${c.__id__}`, i);
    put(`id\0${c.name}`, i);
    put(`decl\0${c.state}\0${c.__id__}`, i);
    put(`any\0${c.__id__}`, i);
    put(`any\0${c.name}`, i);
    put(`sls\0${c.__sls__}`, i);
    // Salt 3007 (DependencyGraph.add_chunk): an SLS also names what its includes brought in
    if (Array.isArray(c.__sls_included_from__)) for (const s of c.__sls_included_from__) if (typeof s === 'string') put(`sls\0${s}`, i);
  });
  const findTargets = (ref: Ref): number[] => {
    if (/[*?[]/.test(ref.value)) {
      const matches = matcherFor(ref);
      return chunks.flatMap((t, j) => (matches(t) ? [j] : []));
    }
    const key = ref.state === 'sls' ? 'sls' : ref.state === 'id' ? 'id' : 'any';
    const found = [...new Set(index.get(`${key}\0${ref.value}`) ?? [])].sort((a, b) => a - b);
    return ref.state === undefined || key !== 'any' ? found : found.filter((j) => chunks[j]!.state === ref.state);
  };
  const add = (from: number, kind: RequisiteKind, to: number): void => {
    // a state naming itself is an edge Salt's graph keeps (a cycle); copying its own arguments is nothing
    if (from === to && UNORDERED_KINDS.has(kind)) return;
    if (kind === 'use') uses.push([from, to]);
    else if (!reqs[from]!.some((r) => r.kind === kind && r.target === to)) reqs[from]!.push({ kind, target: to });
  };
  // an `_in` as Salt's requisite_in writes it: each named declaration gets `<kind>: [{<c's
  // module>: <c's ID>}]`, which then names every state of c's module with c's ID or name
  const addIn = (i: number, kind: RequisiteKind, ref: Ref): void => {
    const c = chunks[i]!;
    const named = requisiteInTargets(c, ref.state, ref.value, chunks);
    if ('error' in named) {
      errors.push(compileError(named.error, where(c)));
      return;
    }
    const declaring = findTargets({ state: c.state, value: c.__id__ });
    for (const d of named.found) {
      // the `watch` requisite_in writes on a module without mod_watch is compiled as require (watch-require.ts)
      const k = kind === 'watch' && !hasModWatch(d.state, modWatch) ? 'require' : kind;
      for (const j of index.get(`decl\0${d.state}\0${d.id}`) ?? []) for (const t of declaring) add(j, k, t);
    }
  };
  chunks.forEach((c, i) => {
    for (const kind of REQUISITE_KINDS) {
      for (const key of ANY_KINDS.has(kind) ? [kind] : [kind, `${kind}_in`]) {
        if (!(key in c) || (!requisiteIn && (key !== kind || UNORDERED_KINDS.has(kind)))) continue;
        for (const ref of parseRefs(key, c[key], c, errors)) {
          if (key !== kind && IN_BY_HIGH_DATA.has(kind)) {
            addIn(i, kind, ref);
            continue;
          }
          const targets = findTargets(ref);
          // a glob naming no SLS is not an error in Salt (add_dependency counts it found)
          if (targets.length === 0 && !(ref.state === 'sls' && /[*?[]/.test(ref.value))) {
            errors.push(compileError(`Referenced state does not exist for requisite [${refText(key, ref)}] in ${describe(c)}`, where(c)));
            continue;
          }
          for (const j of targets) {
            if (key === kind) add(i, kind, j);
            else add(j, kind, i);
          }
        }
      }
    }
  });
  // use: copy the referenced state's arguments that this one does not set (never name/requisites)
  for (const [to, from] of uses) {
    const target = chunks[to]!;
    const source = chunks[from]!;
    for (const [k, v] of Object.entries(source)) if (k !== 'name' && isFunctionArg(k) && !(k in target)) target[k] = v;
  }
  return { reqs, errors };
}
