// The top file: which SLS files each environment gives this minion. The top files of the
// environments Salt would read (top-merge.ts) are rendered like any SLS, merged with the
// configured strategy, and their targets matched against the minion's own ID and grains with
// brine's matchers (glob by default, `- match: grain|grain_pcre|pcre|list|compound|nodegroup|
// ipcidr`), as Salt's get_tops -> merge_tops -> verify_tops -> top_matches.

import { expandNodegroup, expandNodegroupRefs, minionMatches, type TargetType } from '../targeting/index.js';
import { isBrineError } from '../util/errors.js';
import { compileError, type CompileError } from './compiler/high-types.js';
import type { SlsLoader } from './compiler/assemble-high.js';
import { mergeTops, topEnvsToRead, type MergedTop, type TopData, type TopMergingStrategy, type TopReadOptions } from './top-merge.js';

// the file server's rule for saltenv names
const ENV_NAME = /^[A-Za-z0-9_-]+$/;

const MATCH_TYPES: ReadonlySet<string> = new Set(['glob', 'pcre', 'list', 'grain', 'grain_pcre', 'ipcidr', 'compound', 'nodegroup']);

export interface TopMinion {
  id: string;
  grains: Readonly<Record<string, unknown>>;
  nodegroups?: Readonly<Record<string, unknown>>;
}

/** How the top files are chosen and merged (Salt's options of the same names). */
export interface TopOptions extends TopReadOptions {
  /** top_file_merging_strategy; `merge` when absent. */
  strategy?: TopMergingStrategy;
  /** default_top: the top file an environment without one borrows its section from (`same`). */
  defaultTop?: string;
  /** state.top's top file as an SLS name ('top_web' for top_web.sls); `top` when absent. */
  topName?: string;
}

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Whether one top-file target selects this minion. */
function targetMatches(tgt: string, type: string, m: TopMinion): boolean {
  if (type === 'nodegroup') return minionMatches(expandNodegroup(tgt, m.nodegroups ?? {}), 'compound', m.id, m.grains);
  if (type === 'compound') return minionMatches(expandNodegroupRefs(tgt, m.nodegroups ?? {}), 'compound', m.id, m.grains);
  return minionMatches(tgt, type as TargetType, m.id, m.grains);
}

type Matches = Map<string, string[]>;

function add(out: Matches, env: string, name: string): void {
  const list = out.get(env) ?? [];
  if (!list.includes(name)) list.push(name);
  out.set(env, list);
}

/** Adds the SLS names of one target to `out` when it selects the minion (Salt's _filter_matches). */
function matchTarget(section: string, tgt: string, entries: unknown, from: string, m: TopMinion, envs: readonly string[], out: Matches, errors: CompileError[]): void {
  const where = `top.sls (saltenv ${from})`;
  if (!Array.isArray(entries)) {
    errors.push(compileError(`${where}: target '${tgt}' in environment '${section}' must map to a list of SLS names`, `${from}:top`));
    return;
  }
  let type = 'glob';
  const names: Array<[string, string]> = [];
  for (const e of entries) {
    if (typeof e === 'string') names.push([section, e]);
    else if (isMapping(e) && typeof e.match === 'string' && Object.keys(e).length === 1) type = e.match;
    else if (isMapping(e) && Object.keys(e).length === 1 && Object.keys(e)[0] !== 'match') {
      const [key, value] = Object.entries(e)[0]!;
      // `- dev: web`: SLS web of the dev environment (Salt's {env: sls} entry)
      if (typeof value === 'string' && envs.includes(key)) names.push([key, value]);
      else names.push([section, key]);
    } else errors.push(compileError(`${where}: target '${tgt}' has an entry that is neither an SLS name nor '- match: <type>': ${JSON.stringify(e)}`, `${from}:top`));
  }
  if (!MATCH_TYPES.has(type)) {
    errors.push(compileError(`${where}: target '${tgt}' uses match type '${type}', which brine does not support; use one of ${[...MATCH_TYPES].join(', ')}`, `${from}:top`));
    return;
  }
  try {
    if (targetMatches(tgt, type, m)) for (const [env, n] of names) add(out, env, n);
  } catch (err) {
    errors.push(compileError(`${where}: target '${tgt}' (match: ${type}) cannot be evaluated: ${isBrineError(err) ? err.message : String(err)}`, `${from}:top`));
  }
}

/** Renders the top file of each environment to read; a missing or empty one is `{}` (Salt's get_tops). */
async function readTops(read: readonly string[], loader: SlsLoader, errors: CompileError[], topName = 'top'): Promise<Map<string, TopData[]>> {
  const tops = new Map<string, TopData[]>();
  for (const env of read) {
    let loaded: { data: unknown } | undefined;
    try {
      loaded = await loader.load(topName, env);
    } catch (err) {
      if (isBrineError(err, 'FILESERVER_UNAVAILABLE')) throw err;
      errors.push(compileError(`Rendering top.sls in saltenv '${env}' failed: ${isBrineError(err) ? err.message : String(err)}`, `${env}:top`));
      tops.set(env, [{}]);
      continue;
    }
    const data = loaded?.data ?? {};
    if (!isMapping(data)) {
      errors.push(compileError(`top.sls in saltenv '${env}' does not render to a dictionary of environments`, `${env}:top`));
      tops.set(env, [{}]);
      continue;
    }
    const ctop: Record<string, unknown> = {};
    for (const [section, body] of Object.entries(data)) {
      if (section === 'include') {
        errors.push(compileError(`top.sls in saltenv '${env}' has an include: section, which brine does not support in top files; move the included top file's targets into this one`, `${env}:top`));
        continue;
      }
      if (!ENV_NAME.test(section)) {
        errors.push(compileError(`top.sls in saltenv '${env}' names the environment ${JSON.stringify(section)}; environment names are letters, digits, _ and -`, `${env}:top`));
        continue;
      }
      Object.defineProperty(ctop, section, { value: body, enumerable: true, writable: true, configurable: true });
    }
    tops.set(env, [ctop]);
  }
  return tops;
}

/** The SLS names per environment that the merged top gives this minion (Salt's top_matches). */
function topMatches(merged: MergedTop, m: TopMinion, envs: readonly string[], saltenv: string | undefined, errors: CompileError[]): Record<string, string[]> {
  const out: Matches = new Map();
  for (const [section, targets] of merged) {
    if (saltenv && section !== saltenv) continue;
    for (const [tgt, t] of targets) matchTarget(section, tgt, t.entries, t.from, m, envs, out, errors);
  }
  // fromEntries defines own properties: an environment called __proto__ stays a plain key
  return Object.fromEntries(out);
}

/**
 * The merged top: environment -> SLS names for this minion (Salt's show_top). `envs` are the
 * environments the file server lists. A string for `o` is a saltenv/pillarenv restriction with
 * the default strategy.
 */
export async function evaluateTop(
  envs: readonly string[],
  loader: SlsLoader,
  m: TopMinion,
  o: TopOptions | string | undefined = {},
): Promise<{ top: Record<string, string[]>; errors: CompileError[] }> {
  const opts: TopOptions = typeof o === 'string' ? { saltenv: o } : (o ?? {});
  const strategy = opts.strategy ?? 'merge';
  const errors: CompileError[] = [];
  if (strategy === 'same' && !opts.saltenv && !opts.defaultTop) {
    errors.push(
      compileError("top_file_merging_strategy is 'same' but default_top is empty; set default_top to the environment whose top file stands in for a missing one (Salt's default is base)", 'top'),
    );
    return { top: {}, errors };
  }
  const tops = await readTops(topEnvsToRead(envs, opts), loader, errors, opts.topName);
  const merged = mergeTops(tops, strategy, opts.defaultTop ?? 'base');
  for (const [from, section] of merged.malformed) {
    errors.push(compileError(`top.sls (saltenv ${from}): the '${section}' environment must map targets to lists of SLS names`, `${from}:top`));
  }
  const top = topMatches(merged.top, m, envs, opts.saltenv, errors);
  return { top, errors };
}
