// The requisite cycles of a run and Salt 3007's message for them (salt/utils/requisite.py
// DependencyGraph.get_cycles_str, via State.order_chunks): "Recursive requisites were found: "
// then each edge of one cycle as a Python tuple (state declaring the requisite, requisite type,
// state it names), each state shown as the dict {'SLS': ..., 'ID': ...[, 'NAME': ...]}.
// A state that names itself (its own ID or name, or an SLS that holds or includes it) is a cycle
// too: Salt adds that edge to its graph like any other.

import { repr as pyRepr } from '../../render/jinja/py-values.js';
import { compileError, type CompileError, type LowChunk } from './high-types.js';
import { UNORDERED_KINDS } from './requisite-kinds.js';
import type { Requisite } from './requisites.js';

/** DependencyGraph._chunk_str: SLS and ID, and NAME when it differs from the ID. */
function chunkStr(c: LowChunk): string {
  const parts = [`'SLS': ${pyRepr(c.__sls__)}`, `'ID': ${pyRepr(c.__id__)}`];
  if (c.name !== c.__id__) parts.push(`'NAME': ${pyRepr(c.name)}`);
  return `{${parts.join(', ')}}`;
}

/** Strongly connected components that are cycles (several states, or one naming itself): Tarjan. */
export function findCycles(after: readonly number[][]): number[][] {
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const stack: number[] = [];
  const onStack = new Set<number>();
  const found: number[][] = [];
  let next = 0;
  const strong = (v: number): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of after[v]!) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: number[] = [];
      let w: number;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || after[v]!.includes(v)) found.push(comp.sort((a, b) => a - b));
    }
  };
  for (let v = 0; v < after.length; v++) if (!index.has(v)) strong(v);
  return found;
}

/** One closed path through a strongly connected component, from its first state back to it. */
function cyclePath(comp: readonly number[], after: readonly number[][]): number[] {
  const inComp = new Set(comp);
  const start = comp[0]!;
  // breadth-first from start's dependencies until start is reached again
  const from = new Map<number, number>();
  const queue: number[] = [start];
  for (let q = 0; q < queue.length; q++) {
    const v = queue[q]!;
    for (const w of after[v]!) {
      if (!inComp.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let u = v; u !== start; ) {
          u = from.get(u)!;
          path.push(u);
        }
        return path.reverse();
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/** Salt's cycle error, one per cycle (Salt stops at the first it finds; this names them all). */
export function cycleErrors(chunks: readonly LowChunk[], reqs: readonly Requisite[][], after: readonly number[][]): CompileError[] {
  return findCycles(after).map((comp) => {
    const path = cyclePath(comp, after);
    const edges = path.map((v, k) => {
      const w = path[(k + 1) % path.length]!;
      // an edge no requisite of v declares is the one a prereq adds (find_cycle_edges shows 'prereq')
      const kind = reqs[v]!.find((r) => r.target === w && !UNORDERED_KINDS.has(r.kind))?.kind ?? 'prereq';
      return `(${chunkStr(chunks[v]!)}, '${kind}', ${chunkStr(chunks[w]!)})`;
    });
    return compileError(`Recursive requisites were found: ${edges.join(', ')}`, ...comp.map((i) => `${chunks[i]!.__sls__}:${chunks[i]!.__id__}`));
  });
}
