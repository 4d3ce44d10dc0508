// file.accumulated: collects text for a file during one state run; file.managed then sees it as
// the template variable `accumulator` and file.blockreplace appends it to its content. Follows
// Salt's salt/states/file.py accumulated() and the accumulator use in managed()/blockreplace().
// The accumulators live in memory per job (Salt keeps them in a cache file per state run); the
// states of one run execute in one worker, and the last few jobs' data is kept.

import type { StateContext } from '../types.js';
import { defineState } from '../types.js';

interface RunAccumulators {
  /** filename → accumulator name → texts, in charge order. */
  data: Map<string, Map<string, unknown[]>>;
  /** filename → accumulator name → the states its require_in/watch_in name. */
  deps: Map<string, Map<string, unknown[]>>;
}

const KEPT_RUNS = 16;
const runs = new Map<string, RunAccumulators>();

function forRun(ctx: StateContext): RunAccumulators {
  const key = ctx.exec.jid ?? '';
  let r = runs.get(key);
  if (!r) {
    r = { data: new Map(), deps: new Map() };
    runs.set(key, r);
    // drop the oldest runs (Map keeps insertion order)
    while (runs.size > KEPT_RUNS) runs.delete(runs.keys().next().value!);
  }
  return r;
}

/** The accumulated texts for `file` in this run, as Salt's template variable `accumulator`. */
export function accumulatorFor(ctx: StateContext, file: string): Record<string, unknown[]> | undefined {
  const byName = runs.get(ctx.exec.jid ?? '')?.data.get(file);
  return byName && byName.size > 0 ? Object.fromEntries(byName) : undefined;
}

/** A template context with `accumulator` added when the run has accumulated text for `file`. */
export function withAccumulator(ctx: StateContext, file: string, context: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const acc = accumulatorFor(ctx, file);
  return acc ? { ...(context ?? {}), accumulator: acc } : context;
}

/**
 * file.blockreplace's content with the accumulated lines appended (newline-joined), only those
 * accumulators whose require_in/watch_in name this state when any do, as Salt filters them.
 */
export function withAccumulatedContent(ctx: StateContext, file: string, content: string): string {
  const run = runs.get(ctx.exec.jid ?? '');
  const acc = run?.data.get(file);
  if (!acc) return content;
  const deps = run!.deps.get(file) ?? new Map<string, unknown[]>();
  let names = [...deps.keys()].filter((a) => (deps.get(a) ?? []).includes(ctx.low.__id__) && acc.has(a));
  if (names.length === 0) names = [...acc.keys()];
  let out = content;
  for (const n of names) for (const line of acc.get(n) ?? []) out = out === '' ? String(line) : `${out}\n${String(line)}`;
  return out;
}

function asList(v: unknown): unknown[] {
  return v === undefined || v === null ? [] : Array.isArray(v) ? v : [v];
}

export const fileAccumulated = defineState({
  name: 'file.accumulated',
  // Salt's function takes **kwargs: arguments it does not know are ignored, without a warning.
  kwargs: true,
  doc: 'Collect text for a file.managed template (accumulator) or a file.blockreplace block named by require_in/watch_in.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the accumulator name (the key in the template variable accumulator)' },
    { name: 'filename', type: 'string', required: true, doc: 'the file whose file.managed / file.blockreplace state uses the text' },
    { name: 'text', type: 'any', doc: 'a line, a block, or a list of them' },
  ],
  example:
    'hosts-block:\n  file.blockreplace:\n    - name: /etc/hosts\n    - append_if_not_found: True\nhosts-extra:\n  file.accumulated:\n    - filename: /etc/hosts\n    - name: my-accumulator\n    - text: "10.0.0.5 db"\n    - require_in:\n      - file: hosts-block',
  run: async (ctx, { named: a }) => {
    const name = a.name;
    if (!name) return { name, result: false, changes: {}, comment: 'Must provide name to file.accumulated' };
    if (a.text === undefined || a.text === null) return { name, result: false, changes: {}, comment: 'No text supplied for accumulator' };
    const deps = [...asList(ctx.low.require_in), ...asList(ctx.low.watch_in)];
    // Salt's test: a dependency entry that mentions `file` (a {file: id} map or a string).
    if (!deps.some((d) => (typeof d === 'string' ? d.includes('file') : typeof d === 'object' && d !== null && 'file' in d))) {
      return { name, result: false, changes: {}, comment: `Orphaned accumulator ${name} in ${ctx.low.__sls__}:${ctx.low.__id__}` };
    }
    const run = forRun(ctx);
    const data = run.data.get(a.filename) ?? new Map<string, unknown[]>();
    run.data.set(a.filename, data);
    const depMap = run.deps.get(a.filename) ?? new Map<string, unknown[]>();
    run.deps.set(a.filename, depMap);
    const named = depMap.get(name) ?? [];
    depMap.set(name, named);
    for (const d of deps) named.push(...(typeof d === 'object' && d !== null ? Object.values(d) : [d]));
    const texts = data.get(name) ?? [];
    data.set(name, texts);
    let comment = '';
    for (const chunk of asList(a.text)) {
      if (texts.some((t) => JSON.stringify(t) === JSON.stringify(chunk))) continue;
      texts.push(chunk);
      comment = `Accumulator ${name} for file ${a.filename} was charged by text`;
    }
    return { name, result: true, changes: {}, comment };
  },
});
