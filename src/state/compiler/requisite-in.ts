// Which state declarations a `require_in`/`watch_in`/`onfail_in`/`onchanges_in`/`prereq_in`
// reference names, as Salt 3007's HighState.requisite_in and reconcile_extend(strict=True) find
// them (salt/state.py). These differ from the forward requisites (DependencyGraph.add_dependency):
// `- sls: x` names the states whose own SLS is x (find_sls_ids: not the ones x's includes
// brought in, no globs) and naming no state is not an error; `- <module>: x` names the
// declaration of that module with ID x, else the one declaration whose `name` is x (find_name),
// else it is Salt's "Cannot extend ID" error; a bare `- x` names the first module of ID x, else
// a declaration whose name is x, and is silently dropped when none is.

import type { LowChunk } from './high-types.js';

/** A state declaration: one module of one ID (every chunk `names` made of it). */
export interface Declaration {
  id: string;
  state: string;
}

export type InTargets = { found: Declaration[] } | { error: string };

const declKey = (d: Declaration): string => `${d.state}\0${d.id}`;

function unique(decls: Declaration[]): Declaration[] {
  const seen = new Set<string>();
  return decls.filter((d) => {
    const k = declKey(d);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Salt's reconcile_extend message for an `_in` naming no declaration. */
function cannotExtend(id: string, c: LowChunk): string {
  return (
    `Cannot extend ID '${id}' in '${c.__env__}:${c.__sls__}'. It is not part of the high state.\n` +
    'This is likely due to a missing include statement or an incorrectly typed ID.\n' +
    `Ensure that a state with an ID of '${id}' is available\nin environment '${c.__env__}' and to SLS '${c.__sls__}'`
  );
}

/**
 * The declarations `c`'s `_in` reference `{state: value}` (state undefined: a bare name) names.
 * `chunks` are all the run's chunks, in high-data order.
 */
export function requisiteInTargets(c: LowChunk, state: string | undefined, value: string, chunks: readonly LowChunk[]): InTargets {
  const decl = (x: LowChunk): Declaration => ({ id: x.__id__, state: x.state });
  if (state === 'sls') return { found: unique(chunks.filter((x) => x.__sls__ === value).map(decl)) };
  let module = state;
  let id = value;
  if (module === undefined) {
    // a malformed (bare) entry: the ID's first module, else a declaration named so, else nothing
    const byId = chunks.find((x) => x.__id__ === value);
    const byName = byId ?? chunks.find((x) => x.name === value && x.__id__ !== value);
    if (!byName) return { found: [] };
    module = byName.state;
    id = byName.__id__;
  }
  const own = chunks.filter((x) => x.__id__ === id && x.state === module);
  if (own.length > 0) return { found: unique(own.map(decl)) };
  // find_name(strict): the one ID whose declaration of that module has `name: <value>`
  const named = unique(chunks.filter((x) => x.state === module && x.name === id).map(decl));
  if (named.length === 1) return { found: named };
  return { error: cannotExtend(id, c) };
}
