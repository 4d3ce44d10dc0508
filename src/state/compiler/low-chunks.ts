// Stage "low data": one chunk per state function call. `names` expands to one chunk per name
// (with per-name argument overrides), `name` defaults to the ID, and each chunk carries its
// `order` (explicit, or the state_auto_order position) for the ordering stage.

import { compileError, type CompileError, type HighId, type LowChunk } from './high-types.js';

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Chunks in high-data order, their `order` still raw (number, 'first', 'last' or absent). */
export function highToLow(high: readonly HighId[]): { chunks: LowChunk[]; errors: CompileError[] } {
  const chunks: LowChunk[] = [];
  const errors: CompileError[] = [];
  for (const h of high) {
    const where = `${h.sls}:${h.id}`;
    for (const decl of h.decls) {
      if (decl.fun === undefined) continue;
      const base: Record<string, unknown> = { __id__: h.id, __sls__: h.sls, __env__: h.env, state: decl.state, fun: decl.fun, name: h.id };
      if (h.includedFrom !== undefined) base.__sls_included_from__ = [...h.includedFrom];
      let names: unknown[] | undefined;
      let bad = false;
      for (const [key, value] of decl.args) {
        if (key === 'names') {
          if (!Array.isArray(value)) {
            errors.push(compileError(`The 'names' argument in state '${h.id}' in SLS '${h.sls}' needs to be formed as a list`, where));
            bad = true;
          } else names = value;
        } else if (key === 'name') {
          if (typeof value === 'string') base.name = value;
          else if (typeof value === 'number' || typeof value === 'boolean') base.name = String(value);
          else {
            errors.push(compileError(`The 'name' of state '${decl.state}.${decl.fun}' (ID '${h.id}' in SLS '${h.sls}') must be a string, got ${JSON.stringify(value)}`, where));
            bad = true;
          }
        } else if (key === 'fun' || key === 'state') {
        } else if (key === '__env__') {
          // compile_high_data copies it over the chunk's environment (php-formula passes
          // `__env__: [{LC_ALL: C.UTF-8}]`); a text names the environment the state runs in, any
          // other value would name an environment that cannot exist, so the SLS's own is kept
          if (typeof value === 'string') base.__env__ = value;
        } else if (key.startsWith('__')) {
          errors.push(compileError(`State '${decl.state}.${decl.fun}' (ID '${h.id}' in SLS '${h.sls}') uses the reserved argument '${key}'`, where));
          bad = true;
        } else base[key] = value;
      }
      if (bad) continue;
      if (base.order === undefined && decl.autoOrder !== undefined) base.order = decl.autoOrder;
      if (!names) {
        chunks.push(base as LowChunk);
        continue;
      }
      let nameOrder = 1;
      const seen = new Set<string>();
      for (const entry of names) {
        const live: Record<string, unknown> = { ...base };
        if (typeof entry === 'string' || typeof entry === 'number') live.name = String(entry);
        else if (isMapping(entry) && Object.keys(entry).length === 1) {
          const [n, overrides] = Object.entries(entry)[0]!;
          live.name = n;
          // per-name overrides: a list of single-key mappings (Salt), or a mapping
          const list = Array.isArray(overrides) ? overrides : isMapping(overrides) ? [overrides] : overrides === null ? [] : undefined;
          if (!list?.every(isMapping)) {
            errors.push(compileError(`The 'names' entry '${n}' of ID '${h.id}' in SLS '${h.sls}' must map to a list of '- key: value' arguments`, where));
            continue;
          }
          for (const o of list) Object.assign(live, o);
        } else {
          errors.push(compileError(`A 'names' entry of ID '${h.id}' in SLS '${h.sls}' is neither a name nor a single-key mapping: ${JSON.stringify(entry)}`, where));
          continue;
        }
        if (seen.has(live.name as string)) continue;
        seen.add(live.name as string);
        live.name_order = nameOrder++;
        chunks.push(live as LowChunk);
      }
    }
  }
  return { chunks, errors };
}
