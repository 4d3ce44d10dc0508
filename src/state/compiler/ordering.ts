// Stage "ordered graph": Salt's order_chunks (`order: first|last|<n>`, state_auto_order), then
// requisites: every state runs after the states it requires, watches, or waits on (onchanges,
// onfail), and a prereq runs before its target, in the order Salt 3007 sorts them
// (salt-order.ts). A cycle is a compile error in Salt's words (cycle-report.ts).

import { cycleErrors } from './cycle-report.js';
import { compileError, type CompileError, type LowChunk } from './high-types.js';
import { UNORDERED_KINDS } from './requisite-kinds.js';
import type { Requisite } from './requisites.js';
import { saltRunOrder } from './salt-order.js';

/** Salt's cap: 1, or the largest integer `order` plus 100. */
function orderCap(chunks: readonly LowChunk[]): number {
  let cap = 1;
  for (const c of chunks) if (typeof c.order === 'number' && Number.isInteger(c.order) && c.order > cap - 1 && c.order > 0) cap = c.order + 100;
  return cap;
}

/**
 * Each chunk's `order` as Salt's ordering reads a dependent it has not visited yet (before
 * assignOrder): a number as written, first 0, last cap+1000000, absent infinity, anything else cap.
 */
export function rawOrders(chunks: readonly LowChunk[]): number[] {
  const cap = orderCap(chunks);
  return chunks.map((c) => {
    const raw: unknown = c.order;
    if (typeof raw === 'number' && Number.isFinite(raw)) return raw;
    if (raw === 'first') return 0;
    if (raw === 'last') return cap + 1000000;
    return raw === undefined ? Number.POSITIVE_INFINITY : cap;
  });
}

/** Numeric `order` for each chunk, as Salt's order_chunks computes it (mutates `order`). */
export function assignOrder(chunks: LowChunk[]): CompileError[] {
  const errors: CompileError[] = [];
  const cap = orderCap(chunks);
  for (const c of chunks) {
    const raw: unknown = c.order;
    let order: number;
    if (raw === undefined || raw === null) order = cap;
    else if (typeof raw === 'number' && Number.isFinite(raw)) order = raw < 0 ? cap + 1000000 + raw : raw;
    else if (raw === 'first') order = 0;
    else if (raw === 'last') order = cap + 1000000;
    else {
      errors.push(compileError(`The order of state '${c.__id__}' in SLS '${c.__sls__}' must be a number, 'first' or 'last', got ${JSON.stringify(raw)}`, `${c.__sls__}:${c.__id__}`));
      order = cap;
    }
    if (typeof c.name_order === 'number') order += c.name_order / 10000;
    delete c.name_order;
    c.order = order;
  }
  return errors;
}

/** Chunk indexes each chunk must run after (the graph edges). */
export function runAfter(reqs: readonly Requisite[][]): number[][] {
  const after: number[][] = reqs.map(() => []);
  reqs.forEach((list, i) => {
    for (const r of list) {
      if (UNORDERED_KINDS.has(r.kind)) continue;
      if (r.kind === 'prereq') {
        // the target runs after the prereq'd state; the prereq'd state needs the target's own
        // requisites done first, since it runs the target in test mode
        after[r.target]!.push(i);
        for (const t of reqs[r.target]!) if (!UNORDERED_KINDS.has(t.kind) && t.kind !== 'prereq' && t.target !== i) after[i]!.push(t.target);
      } else after[i]!.push(r.target);
    }
  });
  return after.map((a) => [...new Set(a)]);
}

/** The run order Salt 3007 computes (salt-order.ts); errors on cycles. */
export function orderChunks(chunks: readonly LowChunk[], reqs: readonly Requisite[][], rawOrder: readonly number[]): { order: number[]; listed: number[]; errors: CompileError[] } {
  const after = runAfter(reqs);
  const errors = cycleErrors(chunks, reqs, after);
  if (errors.length > 0) return { order: [], listed: [], errors };
  return { ...saltRunOrder({ chunks, reqs, rawOrder }), errors: [] };
}
