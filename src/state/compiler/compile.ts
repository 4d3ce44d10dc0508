// The compiler: high data -> low data -> requisites -> argument check -> ordered graph. Every
// stage runs even when an earlier one found errors, so one compile reports all of them; a run
// with any error runs no state.

import type { StateFunction } from '../types.js';
import { checkArguments } from './arg-check.js';
import { compileError, type CompileError, type HighId, type LowChunk } from './high-types.js';
import { highToLow } from './low-chunks.js';
import { assignOrder, orderChunks, rawOrders } from './ordering.js';
import { resolveRequisites, type Requisite } from './requisites.js';
import { reconcileWatch } from './watch-require.js';

/** Low data in run order with its resolved requisites (targets index into `chunks`). */
export interface CompiledRun {
  chunks: LowChunk[];
  reqs: Requisite[][];
  /** Salt's listing of the chunks (show_lowstate): run order, a prereq target also at its check's place. */
  listed?: number[];
  /** Compiled without requisite_in (state.show_low_sls): the `_in` arguments were not applied. */
  requisiteIn?: false;
}

/** `requisiteIn: false`: only forward requisites order the chunks (see resolveRequisites). */
export function compileLow(high: readonly HighId[], functions: ReadonlyMap<string, StateFunction>, opts: { requisiteIn?: boolean } = {}): { run: CompiledRun; errors: CompileError[] } {
  const { chunks, errors } = highToLow(high);
  const modWatch = modulesWithModWatch(functions);
  reconcileWatch(chunks, modWatch);
  const rawOrder = rawOrders(chunks);
  errors.push(...assignOrder(chunks));
  const resolved = resolveRequisites(chunks, { ...opts, modWatch });
  errors.push(...resolved.errors);
  errors.push(...checkArguments(chunks, functions));
  // listen runs the listener's mod_watch at the end of the run: it must have one
  resolved.reqs.forEach((list, i) => {
    const c = chunks[i]!;
    const fn = functions.get(`${c.state}.${c.fun}`);
    if (fn && !fn.modWatch && list.some((r) => r.kind === 'listen')) {
      errors.push(
        compileError(
          `State '${fn.name}' (ID '${c.__id__}') in SLS '${c.__sls__}' listens to other states, but ${fn.name} has no mod_watch to run when they change; use onchanges or watch`,
          `${c.__sls__}:${c.__id__}`,
        ),
      );
    }
  });
  const ordered = orderChunks(chunks, resolved.reqs, rawOrder);
  errors.push(...ordered.errors);
  if (errors.length > 0) return { run: { chunks, reqs: resolved.reqs }, errors };
  // renumber so that the run order is the chunk order
  const position = new Map(ordered.order.map((old, i) => [old, i]));
  const runChunks = ordered.order.map((old) => chunks[old]!);
  const runReqs = ordered.order.map((old) => resolved.reqs[old]!.map((r) => ({ kind: r.kind, target: position.get(r.target)! })));
  const listed = ordered.listed.map((old) => position.get(old)!);
  return { run: { chunks: runChunks, reqs: runReqs, listed, ...(opts.requisiteIn === false ? { requisiteIn: false as const } : {}) }, errors };
}

/** State modules with a mod_watch among this run's functions (a custom state module's too). */
function modulesWithModWatch(functions: ReadonlyMap<string, StateFunction>): Set<string> {
  const out = new Set<string>();
  for (const fn of functions.values()) if (fn.modWatch) out.add(fn.name.slice(0, fn.name.indexOf('.')));
  return out;
}

export function functionMap(fns: Iterable<StateFunction>): Map<string, StateFunction> {
  return new Map([...fns].map((f) => [f.name, f]));
}
