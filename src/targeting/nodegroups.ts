// Nodegroups from the master's `nodegroups` option, expanded into compound expressions as Salt's
// nodegroup_comp does: `N@name` recursively, a plain list of names as `L@a,b,c`. A loop or an
// unknown name is an error (Salt logged it and silently dropped that part of the target).

import { BrineError } from '../util/errors.js';
import { isOperator, splitWords } from './compound-parser.js';
import type { Target } from './types.js';

export type Nodegroups = Readonly<Record<string, unknown>>;

const ENGINE_PREFIX = /^[A-Z]@/;
const REGEX_CHARS = ['(', '[', '{', '\\', '?', '}', ']', ')'];

function has(groups: Nodegroups, name: string): boolean {
  return Object.hasOwn(groups, name);
}

function definitionWords(name: string, def: unknown): string[] {
  const items = typeof def === 'string' ? [def] : Array.isArray(def) ? def : undefined;
  if (items === undefined) {
    throw new BrineError('TARGET_INVALID', `nodegroup '${name}' must be a compound expression (a string) or a list of words/minion IDs in the master's nodegroups option`);
  }
  // Salt's str(word) for list items; brine also splits an item that holds several words
  return items.flatMap((w) => splitWords(typeof w === 'string' ? w : String(w)).map((x) => x.text));
}

/**
 * Salt: a definition with no operators, no `*` and no engine prefix is a list of minion IDs
 * (`L@a,b`), or a regular expression (`E@...`) when a word holds regex characters.
 */
function asIdList(words: string[]): string[] {
  if (words.some(isOperator) || words.some((w) => w.includes('*') || ENGINE_PREFIX.test(w))) return words;
  const regex = words.some((w) => REGEX_CHARS.some((c) => w.includes(c)));
  return [`${regex ? 'E' : 'L'}@${words.join(',')}`];
}

function expand(name: string, groups: Nodegroups, path: readonly string[]): string[] {
  if (path.includes(name)) {
    const loop = [...path.slice(path.indexOf(name)), name].join(' -> N@');
    throw new BrineError('TARGET_INVALID', `nodegroup loop: N@${loop}; change the master's nodegroups option so no group includes itself`, {
      details: { loop: [...path.slice(path.indexOf(name)), name] },
    });
  }
  if (!has(groups, name)) {
    const known = Object.keys(groups).sort();
    const where = path.length > 0 ? ` (used as N@${name} in nodegroup '${path[path.length - 1]}')` : '';
    const list = known.length > 0 ? `known nodegroups: ${known.join(', ')}` : 'the master config defines no nodegroups';
    throw new BrineError('TARGET_INVALID', `unknown nodegroup '${name}'${where}; ${list}`, { details: { nodegroup: name } });
  }
  const words = definitionWords(name, groups[name]);
  if (words.length === 0) throw new BrineError('TARGET_INVALID', `nodegroup '${name}' is empty; give it a compound expression or a list of minion IDs`);
  const out: string[] = [];
  for (const word of asIdList(words)) {
    if (word.length >= 3 && word.startsWith('N@')) out.push('(', ...expand(word.slice(2), groups, [...path, name]), ')');
    else out.push(word);
  }
  return out;
}

/** The compound expression a nodegroup stands for. Throws TARGET_INVALID (unknown, loop, empty). */
export function expandNodegroup(name: string, groups: Nodegroups): string {
  return expand(name, groups, []).join(' ');
}

/** A compound expression with every `N@name` replaced by its parenthesised expansion. */
export function expandNodegroupRefs(expr: Target, groups: Nodegroups): string {
  const words = typeof expr === 'string' ? splitWords(expr).map((w) => w.text) : expr.flatMap((w) => splitWords(w).map((x) => x.text));
  const out: string[] = [];
  for (const word of words) {
    if (word.length >= 3 && word.startsWith('N@')) out.push('(', ...expand(word.slice(2), groups, []), ')');
    else out.push(word);
  }
  return out.join(' ');
}
