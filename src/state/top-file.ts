// The top file: which SLS files each environment gives this minion. Each environment's
// top.sls is rendered like any SLS and its targets are matched against the minion's own ID and
// grains with brine's matchers (glob by default, `- match: grain|grain_pcre|pcre|list|compound|
// nodegroup|ipcidr`). Salt's default `merge` strategy: base's top file first, then the others in
// order, and an environment section already defined by an earlier top file is ignored.

import { expandNodegroup, expandNodegroupRefs, minionMatches, type TargetType } from '../targeting/index.js';
import { isBrineError } from '../util/errors.js';
import { compileError, type CompileError } from './compiler/high-types.js';
import type { SlsLoader } from './compiler/assemble-high.js';

// the file server's rule for saltenv names
const ENV_NAME = /^[A-Za-z0-9_-]+$/;

const MATCH_TYPES: ReadonlySet<string> = new Set(['glob', 'pcre', 'list', 'grain', 'grain_pcre', 'ipcidr', 'compound', 'nodegroup']);

export interface TopMinion {
  id: string;
  grains: Readonly<Record<string, unknown>>;
  nodegroups?: Readonly<Record<string, unknown>>;
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

/** The SLS names of one environment section that match the minion, in order. */
function matchSection(topEnv: string, section: string, body: unknown, m: TopMinion, errors: CompileError[]): string[] {
  const where = `top.sls (saltenv ${topEnv})`;
  if (!isMapping(body)) {
    errors.push(compileError(`${where}: the '${section}' environment must map targets to lists of SLS names`, `${topEnv}:top`));
    return [];
  }
  const out: string[] = [];
  for (const [tgt, entries] of Object.entries(body)) {
    if (!Array.isArray(entries)) {
      errors.push(compileError(`${where}: target '${tgt}' in environment '${section}' must map to a list of SLS names`, `${topEnv}:top`));
      continue;
    }
    let type = 'glob';
    const names: string[] = [];
    for (const e of entries) {
      if (typeof e === 'string') names.push(e);
      else if (isMapping(e) && typeof e.match === 'string' && Object.keys(e).length === 1) type = e.match;
      else if (isMapping(e) && Object.keys(e).length === 1 && Object.keys(e)[0] !== 'match') names.push(Object.keys(e)[0]!);
      else errors.push(compileError(`${where}: target '${tgt}' has an entry that is neither an SLS name nor '- match: <type>': ${JSON.stringify(e)}`, `${topEnv}:top`));
    }
    if (!MATCH_TYPES.has(type)) {
      errors.push(compileError(`${where}: target '${tgt}' uses match type '${type}', which brine does not support; use one of ${[...MATCH_TYPES].join(', ')}`, `${topEnv}:top`));
      continue;
    }
    try {
      if (targetMatches(tgt, type, m)) for (const n of names) if (!out.includes(n)) out.push(n);
    } catch (err) {
      errors.push(compileError(`${where}: target '${tgt}' (match: ${type}) cannot be evaluated: ${isBrineError(err) ? err.message : String(err)}`, `${topEnv}:top`));
    }
  }
  return out;
}

/**
 * The merged top: environment -> SLS names for this minion (Salt's show_top). `only` limits it
 * to that environment's own top file and section (state.apply saltenv=...).
 */
export async function evaluateTop(envs: readonly string[], loader: SlsLoader, m: TopMinion, only?: string): Promise<{ top: Record<string, string[]>; errors: CompileError[] }> {
  const errors: CompileError[] = [];
  const order = only !== undefined ? [only] : [...envs].sort((a, b) => (a === 'base' ? -1 : b === 'base' ? 1 : a < b ? -1 : a > b ? 1 : 0));
  const top = new Map<string, string[]>();
  const defined = new Set<string>();
  for (const env of order) {
    let loaded: { data: unknown } | undefined;
    try {
      loaded = await loader.load('top', env);
    } catch (err) {
      if (isBrineError(err, 'FILESERVER_UNAVAILABLE')) throw err;
      errors.push(compileError(`Rendering top.sls in saltenv '${env}' failed: ${isBrineError(err) ? err.message : String(err)}`, `${env}:top`));
      continue;
    }
    if (!loaded || loaded.data === null || loaded.data === undefined) continue;
    if (!isMapping(loaded.data)) {
      errors.push(compileError(`top.sls in saltenv '${env}' does not render to a dictionary of environments`, `${env}:top`));
      continue;
    }
    const sections = new Map<string, unknown>();
    for (const [section, body] of Object.entries(loaded.data)) {
      if (!ENV_NAME.test(section)) {
        errors.push(compileError(`top.sls in saltenv '${env}' names the environment ${JSON.stringify(section)}; environment names are letters, digits, _ and -`, `${env}:top`));
        continue;
      }
      if (only !== undefined && section !== only) continue;
      if (defined.has(section)) continue;
      sections.set(section, body);
    }
    for (const [section, body] of sections) {
      defined.add(section);
      const names = matchSection(env, section, body, m, errors);
      const had = top.get(section) ?? [];
      if (names.length > 0) top.set(section, [...had, ...names.filter((n) => !had.includes(n))]);
    }
  }
  // fromEntries defines own properties: an environment called __proto__ stays a plain key
  return { top: Object.fromEntries(top), errors };
}
