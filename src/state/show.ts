// Salt's shapes for the show_* functions: high data as `{id: {__sls__, __env__, state: [fun,
// {arg: value}, ...]}}` and low data as a list of chunks.

import type { HighId, LowChunk } from './compiler/high-types.js';

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
    setOwn(out, h.id, body);
  }
  return out;
}

export function lowToSalt(chunks: readonly LowChunk[]): Record<string, unknown>[] {
  return chunks.map((c) => ({ ...c }));
}
