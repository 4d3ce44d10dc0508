// What Salt's HighState.requisite_in writes into the high data before compiling it, so that
// show_lowstate shows it: a `watch_in: [{service: x}]` on state s becomes `watch: [{<s's
// module>: <s's ID>}]` on x (appended to x's own `watch`, or added after its other arguments),
// and a `prereq` adds `prerequired` to its target the same way. brine resolves these edges in
// the requisite stage; this only reproduces the data Salt prints.

import type { LowChunk } from './compiler/high-types.js';

/** The requisite-in keys Salt turns into arguments of their targets, and the argument each becomes. */
const INVERTED: ReadonlyArray<[from: string, to: string]> = [
  ['require_in', 'require'],
  ['watch_in', 'watch'],
  ['onfail_in', 'onfail'],
  ['onchanges_in', 'onchanges'],
  ['prereq', 'prerequired'],
];

const declKey = (id: string, state: string): string => `${state}\0${id}`;

/** For each state declaration (module + ID): the requisite arguments other states add to it, in Salt's order. */
export function requisiteInAdditions(chunks: readonly LowChunk[]): Map<string, Array<[key: string, entries: Array<Record<string, string>>]>> {
  const out = new Map<string, Array<[string, Array<Record<string, string>>]>>();
  // the declarations a reference names, as Salt's find_name/find_sls_ids find them
  const targets = (state: string, value: string): string[] => {
    const found = new Set<string>();
    for (const c of chunks) {
      if (state === 'sls' ? c.__sls__ === value : c.state === state && (c.__id__ === value || c.name === value)) found.add(declKey(c.__id__, c.state));
    }
    return [...found];
  };
  const seen = new Set<string>();
  for (const c of chunks) {
    // one extension per declaration, even when `names` made several chunks of it
    const own = declKey(c.__id__, c.state);
    if (seen.has(own)) continue;
    seen.add(own);
    for (const [from, to] of INVERTED) {
      const refs = c[from];
      if (!Array.isArray(refs)) continue;
      for (const ref of refs) {
        if (typeof ref !== 'object' || ref === null || Array.isArray(ref)) continue;
        const [state, value] = Object.entries(ref as Record<string, unknown>)[0] ?? [];
        if (state === undefined || typeof value !== 'string') continue;
        for (const t of targets(state, value)) {
          const list = out.get(t) ?? [];
          const existing = list.find(([k]) => k === to);
          if (existing) existing[1].push({ [c.state]: c.__id__ });
          else list.push([to, [{ [c.state]: c.__id__ }]]);
          out.set(t, list);
        }
      }
    }
  }
  return out;
}

/** The additions for one chunk's declaration. */
export function additionsFor(additions: ReturnType<typeof requisiteInAdditions>, c: LowChunk): Array<[string, Array<Record<string, string>>]> {
  return additions.get(declKey(c.__id__, c.state)) ?? [];
}
