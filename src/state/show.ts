// Salt's shapes for the show_* functions: high data as `{id: {__sls__, __env__, state: [fun,
// {arg: value}, ...]}}` and low data as a list of chunks.

import type { CompiledRun } from './compiler/compile.js';
import type { HighId } from './compiler/high-types.js';
import { keysAfterFun } from './compiler/watch-require.js';
import { additionsFor, requisiteInAdditions } from './requisite-in-view.js';

function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

export function highToSalt(high: readonly HighId[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const h of high) {
    const body: Record<string, unknown> = {};
    for (const d of h.decls) {
      const list: unknown[] = d.args.map(([k, v]) => {
        const arg: Record<string, unknown> = {};
        setOwn(arg, k, v);
        return arg;
      });
      if (d.autoOrder !== undefined && !d.args.some(([k]) => k === 'order')) list.push({ order: d.autoOrder });
      if (d.fun !== undefined) list.unshift(d.fun);
      setOwn(body, d.state, list);
    }
    setOwn(body, '__sls__', h.sls);
    setOwn(body, '__env__', h.env);
    if (h.includedFrom !== undefined) setOwn(body, '__sls_included_from__', [...h.includedFrom]);
    setOwn(out, h.id, body);
  }
  return out;
}

/** Keys Salt's compile_high_data writes first, in its order; the arguments follow, then `fun`. */
const LEADING = ['state', 'name', '__sls__', '__env__', '__sls_included_from__', '__id__'] as const;

/**
 * Low data as Salt 3007's show_lowstate prints it: in run order (a prereq target listed twice,
 * also where its test-mode check comes, as Salt's DependencyGraph lists it), each chunk's keys in the order
 * compile_high_data writes them (state, name, __sls__, __env__, __sls_included_from__, __id__,
 * the arguments with `order`, fun), and the flags its DependencyGraph sets on a prereq pair
 * (`__prerequiring__` on the state declaring it, `__prereq__` on its target).
 */
export function lowToSalt(run: CompiledRun | undefined): Record<string, unknown>[] {
  if (run === undefined) return [];
  const prerequiring = new Set<number>();
  const prereq = new Set<number>();
  run.reqs.forEach((list, i) => {
    for (const r of list) {
      if (r.kind !== 'prereq') continue;
      prerequiring.add(i);
      prereq.add(r.target);
    }
  });
  const listed = run.listed ?? run.chunks.map((_, i) => i);
  const additions = run.requisiteIn === false ? new Map() : requisiteInAdditions(run.chunks);
  return listed.map((i) => {
    const c = run.chunks[i]!;
    const out: Record<string, unknown> = {};
    for (const k of LEADING) if (k in c) setOwn(out, k, c[k]);
    for (const [k, v] of Object.entries(c)) if (!(LEADING as readonly string[]).includes(k) && k !== 'fun') setOwn(out, k, v);
    // requisite_in's extension: extends an existing list in place, else comes after the arguments
    for (const [k, entries] of additionsFor(additions, c)) setOwn(out, k, Array.isArray(out[k]) ? [...(out[k] as unknown[]), ...entries] : entries);
    setOwn(out, 'fun', c.fun);
    // a watch Salt turned into require (no mod_watch): its new key comes after fun
    for (const k of keysAfterFun(c)) {
      const v = out[k];
      delete out[k];
      setOwn(out, k, v);
    }
    if (prerequiring.has(i)) setOwn(out, '__prerequiring__', true);
    if (prereq.has(i)) setOwn(out, '__prereq__', true);
    return out;
  });
}
