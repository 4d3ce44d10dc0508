// Salt's regex filters (`regex_replace`, `regex_search`, `regex_match`) take Python `re`
// patterns. The common subset translates to JS; a Python-only construct is an error.

import { PyError, tuple } from './py-values.js';
import { errorMessage } from '../../util/errors.js';

const cache = new Map<string, RegExp>();

function translate(pattern: string, flags: string): RegExp {
  const key = `${flags}\0${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let src = pattern;
  let f = flags;
  const inline = /^\(\?([aiLmsux]+)\)/.exec(src);
  if (inline) {
    for (const c of inline[1]!) {
      if (c === 'i' || c === 'm' || c === 's') f += c;
      else if (c !== 'u') throw new PyError(`regex flag (?${c}) is not supported by brine`);
    }
    src = src.slice(inline[0].length);
  }
  if (/\(\?[aiLmsux]/.test(src) || /\(\?\(/.test(src) || /\\Z/.test(src)) throw new PyError(`regex construct in '${pattern}' is not supported by brine`);
  src = src
    .replace(/\(\?P<(\w+)>/g, '(?<$1>')
    .replace(/\(\?P=(\w+)\)/g, '\\k<$1>')
    .replace(/\\A/g, '^');
  let re: RegExp;
  try {
    re = new RegExp(src, [...new Set(f)].join(''));
  } catch (err) {
    throw new PyError(`invalid regular expression '${pattern}': ${errorMessage(err)}`);
  }
  cache.set(key, re);
  return re;
}

function flagsOf(ignorecase: boolean, multiline: boolean): string {
  return (ignorecase ? 'i' : '') + (multiline ? 'm' : '');
}

/** re.search (or re.match when `anchored`) returning the groups as a tuple, or null when no match. */
export function regexSearch(text: string, pattern: string, ignorecase: boolean, multiline: boolean, anchored: boolean): unknown[] | null {
  const re = translate(pattern, flagsOf(ignorecase, multiline) + 'y'.repeat(anchored ? 1 : 0));
  re.lastIndex = 0;
  const m = re.exec(text);
  if (!m) return null;
  return tuple(m.slice(1).map((g) => (g === undefined ? null : g)));
}

/** Python's re.sub replacement template: `\1`, `\g<1>`, `\g<name>`, `\n`, `\\`. */
function expandTemplate(repl: string, m: RegExpExecArray): string {
  return repl.replace(/\\(g<(\w+)>|\d{1,2}|[ntr\\]|.)/g, (all, what: string, g: string | undefined) => {
    if (g !== undefined) return (/^\d+$/.test(g) ? m[Number(g)] : m.groups?.[g]) ?? '';
    if (/^\d+$/.test(what)) return m[Number(what)] ?? '';
    if (what === 'n') return '\n';
    if (what === 't') return '\t';
    if (what === 'r') return '\r';
    if (what === '\\') return '\\';
    return all;
  });
}

/** re.sub(pattern, repl, text). */
export function regexReplace(text: string, pattern: string, repl: string, ignorecase: boolean, multiline: boolean): string {
  const re = translate(pattern, `${flagsOf(ignorecase, multiline)}g`);
  re.lastIndex = 0;
  return text.replace(re, (...args: unknown[]) => {
    const hasGroups = typeof args[args.length - 1] === 'object';
    const groups = hasGroups ? (args[args.length - 1] as Record<string, string>) : undefined;
    const caps = args.slice(0, hasGroups ? -3 : -2) as string[];
    const m = Object.assign([...caps], { groups, index: 0, input: text }) as unknown as RegExpExecArray;
    return expandTemplate(repl, m);
  });
}

/** re.escape. */
export function regexEscape(text: string): string {
  return text.replace(/[^A-Za-z0-9_]/g, (c) => `\\${c}`);
}
