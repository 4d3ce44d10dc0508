// The run order Salt 3007 computes (salt/utils/requisite.py DependencyGraph): a lexicographical
// topological sort of the requisite graph whose priority for a state is its own `order`, pulled
// down to the lowest `order` of the states that directly depend on it through their strongest
// requisite type, then its own `order`, then state+name+fun. A prereq adds a "prereq check" node
// (the target run in test mode) that takes the target's requisites and must precede the state
// declaring the prereq, which itself precedes the target. show_lowstate lists this order.

import type { LowChunk } from './high-types.js';
import type { Requisite } from './requisites.js';

/** Salt's RequisiteType weights (their declaration order): the strongest edge type decides. */
const WEIGHT: Readonly<Record<string, number>> = { onfail: 0, onfail_any: 1, onfail_all: 2, require: 3, require_any: 4, onchanges: 5, onchanges_any: 6, watch: 7, watch_any: 8, prereq: 9 };
/** The order Salt's add_requisites visits requisite types in (the edge insertion order). */
const ADD_ORDER = ['require', 'require_any', 'watch', 'watch_any', 'prereq', 'onfail', 'onfail_any', 'onfail_all', 'onchanges', 'onchanges_any'];

interface Edge {
  to: number;
  weight: number;
}

/** A binary min-heap of node keys, compared as Salt's (key tuple, node index) tuples. */
class KeyHeap {
  private readonly items: Array<{ key: [number, number, string]; node: number }> = [];
  get size(): number {
    return this.items.length;
  }
  private static less(a: { key: [number, number, string]; node: number }, b: { key: [number, number, string]; node: number }): boolean {
    if (a.key[0] !== b.key[0]) return a.key[0] < b.key[0];
    if (a.key[1] !== b.key[1]) return a.key[1] < b.key[1];
    if (a.key[2] !== b.key[2]) return a.key[2] < b.key[2];
    return a.node < b.node;
  }
  push(item: { key: [number, number, string]; node: number }): void {
    const a = this.items;
    a.push(item);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!KeyHeap.less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && KeyHeap.less(a[l]!, a[m]!)) m = l;
        if (r < a.length && KeyHeap.less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top.node;
  }
}

export interface OrderInput {
  chunks: readonly LowChunk[];
  reqs: readonly Requisite[][];
  /** Each chunk's `order` before name_order was added, as Salt reads a not yet visited dependent's. */
  rawOrder: readonly number[];
}

export interface SaltOrder {
  /** The chunk indexes in run order. */
  order: number[];
  /**
   * The list Salt's aggregate_and_order_chunks returns: the run order with a prereq target also
   * at its prereq check node's place (the same chunk, listed twice by show_lowstate).
   */
  listed: number[];
}

/**
 * Salt's order of the chunks. The graph must be acyclic (ordering.ts reports cycles first).
 * Chunk `order` values are the normalised ones (assignOrder).
 */
export function saltRunOrder({ chunks, reqs, rawOrder }: OrderInput): SaltOrder {
  const n = chunks.length;
  // nodes 0..n-1 are the chunks; prereq check nodes follow, each standing for its target chunk
  const chunkOf: number[] = chunks.map((_, i) => i);
  const out: Map<number, Edge[]>[] = chunks.map(() => new Map());
  const inEdges: Array<Array<{ from: number; weight: number }>> = chunks.map(() => []);
  const addEdge = (from: number, to: number, weight: number): void => {
    const byTarget = out[from]!;
    const list = byTarget.get(to) ?? [];
    // networkx keys multi-edges by requisite type: the same type twice is one edge
    if (list.some((e) => e.weight === weight)) return;
    list.push({ to, weight });
    byTarget.set(to, list);
    inEdges[to]!.push({ from, weight });
  };
  const prereqNode = new Map<number, number>();
  const checkNodeOf = (target: number): number => {
    let p = prereqNode.get(target);
    if (p !== undefined) return p;
    p = chunkOf.length;
    chunkOf.push(target);
    out.push(new Map());
    inEdges.push([]);
    prereqNode.set(target, p);
    // the check runs the target in test mode: it needs what the target needs
    for (const e of [...inEdges[target]!]) if (e.weight !== WEIGHT.prereq) addEdge(e.from, p, e.weight);
    return p;
  };

  for (let i = 0; i < n; i++) {
    for (const kind of ADD_ORDER) {
      for (const r of reqs[i]!) {
        if (r.kind !== kind) continue;
        if (kind === 'prereq') {
          const p = checkNodeOf(r.target);
          addEdge(p, i, WEIGHT.prereq!);
          addEdge(i, r.target, WEIGHT.require!);
        } else {
          addEdge(r.target, i, WEIGHT[kind]!);
          const p = prereqNode.get(i);
          if (p !== undefined) addEdge(r.target, p, WEIGHT[kind]!);
        }
      }
    }
  }

  const visited = new Set<number>();
  const own = (c: number): number => chunks[c]!.order;
  const orderSeen = (c: number): number => (visited.has(c) ? own(c) : rawOrder[c]!);
  // _get_chunk_order: own order, lowered to the dependents' lowest through the strongest edge type
  const keyOf = (node: number): [number, number, string] => {
    const c = chunkOf[node]!;
    visited.add(c);
    let order = own(c);
    let childMin = Number.POSITIVE_INFINITY;
    let reqOrder = Number.NEGATIVE_INFINITY;
    for (const [to, edges] of out[node]!) {
      for (const e of edges) {
        if (reqOrder > e.weight) continue;
        reqOrder = e.weight;
        childMin = Math.min(childMin, orderSeen(chunkOf[to]!));
      }
    }
    if (order > childMin) order = childMin;
    const ch = chunks[c]!;
    return [order, own(c), `${ch.state}${ch.name}${ch.fun}`];
  };

  const indegree = inEdges.map((l) => l.length);
  const heap = new KeyHeap();
  for (let v = 0; v < chunkOf.length; v++) if (indegree[v] === 0) heap.push({ key: keyOf(v), node: v });
  const order: number[] = [];
  const listed: number[] = [];
  while (heap.size > 0) {
    const v = heap.pop();
    if (v < n) order.push(v);
    listed.push(chunkOf[v]!);
    for (const [to, edges] of out[v]!) {
      indegree[to]! -= edges.length;
      if (indegree[to] === 0) heap.push({ key: keyOf(to), node: to });
    }
  }
  return { order, listed };
}
