// Salt's file.replace takes Python regular expressions, Python `re` flags and Python
// replacement templates (\1, \g<name>). This translates them to JavaScript RegExp and expands
// templates as Python's re.sub does.

import { BrineError, errorMessage } from '../util/errors.js';

// Python's re flag values (re.IGNORECASE == 2 ...), by name and by bit.
const FLAG_BITS = new Map<string, number>([
  ['I', 2],
  ['IGNORECASE', 2],
  ['L', 4],
  ['LOCALE', 4],
  ['M', 8],
  ['MULTILINE', 8],
  ['S', 16],
  ['DOTALL', 16],
  ['U', 32],
  ['UNICODE', 32],
  ['X', 64],
  ['VERBOSE', 64],
  ['A', 256],
  ['ASCII', 256],
]);

function bad(fun: string, what: string): BrineError {
  return new BrineError('BAD_ARGUMENTS', `${fun}: ${what}`);
}

/** Salt's _get_flags: an int, one flag name, or a list of names ('IGNORECASE', 'I' ...). */
export function pythonFlags(fun: string, flags: unknown): number {
  if (typeof flags === 'number' && Number.isInteger(flags) && flags >= 0) return flags;
  if (typeof flags === 'string' && /^\d+$/.test(flags.trim())) return Number(flags.trim());
  const names = typeof flags === 'string' ? [flags] : Array.isArray(flags) ? flags : undefined;
  if (!names) throw bad(fun, `invalid re flags '${JSON.stringify(flags)}'; give one flag name, a list of names or an integer`);
  let bits = 0;
  for (const n of names) {
    const bit = FLAG_BITS.get(String(n).trim().toUpperCase());
    if (bit === undefined) throw bad(fun, `invalid re flag given: ${String(n)}; use IGNORECASE, MULTILINE, DOTALL, UNICODE or ASCII`);
    bits |= bit;
  }
  return bits;
}

/** JavaScript flags for Python flag bits; VERBOSE and LOCALE have no equivalent and are refused. */
function jsFlags(fun: string, bits: number): string {
  if (bits & 64) throw bad(fun, 're.VERBOSE is not supported; write the pattern without whitespace and comments');
  if (bits & 4) throw bad(fun, 're.LOCALE is not supported');
  // UNICODE and ASCII change only \w-style classes in Python; JavaScript's are ASCII already.
  return `g${bits & 2 ? 'i' : ''}${bits & 8 ? 'm' : ''}${bits & 16 ? 's' : ''}`;
}

/**
 * Rewrites the Python-only syntax JavaScript lacks: (?P<n>...) → (?<n>...), (?P=n) → \k<n>,
 * \A and \Z, (?#...) comments, leading inline flags (?ims), and a `]` first in a class.
 */
function translatePattern(fun: string, pattern: string): { source: string; inlineBits: number } {
  let out = '';
  let inClass = false;
  let inlineBits = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined) throw bad(fun, 'the pattern ends with a lone backslash');
      if (!inClass && n === 'A') out += '(?<![\\s\\S])';
      else if (!inClass && n === 'Z') out += '(?![\\s\\S])';
      else out += c + n;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (pattern[i + 1] === '^') out += pattern[++i];
      // In Python a `]` right after `[` or `[^` is a literal; in JavaScript it would close the class.
      if (pattern[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (pattern.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
      continue;
    }
    const backref = /^\(\?P=(\w+)\)/.exec(pattern.slice(i));
    if (backref) {
      out += `\\k<${backref[1]}>`;
      i += backref[0].length - 1;
      continue;
    }
    const comment = /^\(\?#[^)]*\)/.exec(pattern.slice(i));
    if (comment) {
      i += comment[0].length - 1;
      continue;
    }
    const inline = /^\(\?([aiLmsux]+)\)/.exec(pattern.slice(i));
    if (inline) {
      for (const f of inline[1]!) inlineBits |= FLAG_BITS.get(f.toUpperCase()) ?? 0;
      i += inline[0].length - 1;
      continue;
    }
    out += c;
  }
  return { source: out, inlineBits };
}

/** Compiles a Python pattern with Python flag bits into a global JavaScript RegExp. */
export function compilePythonRegex(fun: string, pattern: string, flagBits: number): RegExp {
  const { source, inlineBits } = translatePattern(fun, pattern);
  try {
    return new RegExp(source, jsFlags(fun, flagBits | inlineBits));
  } catch (err) {
    if (err instanceof BrineError) throw err;
    throw bad(fun, `invalid regular expression '${pattern}': ${errorMessage(err)}`);
  }
}

const SIMPLE_ESCAPES = new Map<string, string>([
  ['n', '\n'],
  ['t', '\t'],
  ['r', '\r'],
  ['f', '\f'],
  ['v', '\v'],
  ['a', '\x07'],
  ['b', '\b'],
  ['\\', '\\'],
]);

type TemplatePart = string | { group: number | string };

/** Parses a Python replacement template once, so each match only fills in groups. */
export function parseTemplate(fun: string, repl: string, groupCount: number, groupNames: ReadonlySet<string>): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let lit = '';
  const pushGroup = (g: number | string): void => {
    if (typeof g === 'number' && g > groupCount) throw bad(fun, `invalid group reference ${g} in the replacement; the pattern has ${groupCount} group(s)`);
    if (typeof g === 'string' && !groupNames.has(g)) throw bad(fun, `unknown group name '${g}' in the replacement`);
    if (lit) parts.push(lit);
    lit = '';
    parts.push({ group: g });
  };
  for (let i = 0; i < repl.length; i++) {
    const c = repl[i]!;
    if (c !== '\\') {
      lit += c;
      continue;
    }
    const n = repl[i + 1];
    if (n === undefined) throw bad(fun, 'the replacement ends with a lone backslash; write \\\\ for a backslash');
    if (n === 'g') {
      const m = /^\\g<([^>]*)>/.exec(repl.slice(i));
      if (!m) throw bad(fun, 'missing group name after \\g in the replacement; write \\g<1> or \\g<name>');
      pushGroup(/^\d+$/.test(m[1]!) ? Number(m[1]) : m[1]!);
      i += m[0].length - 1;
      continue;
    }
    const octal = /^\\(0[0-7]{0,2}|[0-7]{3})/.exec(repl.slice(i));
    if (octal) {
      lit += String.fromCharCode(parseInt(octal[1]!, 8));
      i += octal[0].length - 1;
      continue;
    }
    const num = /^\\(\d\d?)/.exec(repl.slice(i));
    if (num) {
      pushGroup(Number(num[1]));
      i += num[0].length - 1;
      continue;
    }
    const simple = SIMPLE_ESCAPES.get(n);
    if (simple !== undefined) lit += simple;
    else if (/[A-Za-z]/.test(n)) throw bad(fun, `bad escape \\${n} in the replacement; write \\\\${n} for a literal backslash`);
    else lit += c + n;
    i++;
  }
  if (lit) parts.push(lit);
  return parts;
}

/** Python's re.subn: replaces the first `count` matches (0 = all), returns the text and the count. */
export function pythonSubn(fun: string, re: RegExp, repl: string, text: string, count: number, literal: boolean): { text: string; n: number } {
  // Count groups and collect names by compiling an alternation that always matches empty.
  const probe = new RegExp(`${re.source}|`, re.flags.replace('g', '')).exec('')!;
  const names = new Set(Object.keys(probe.groups ?? {}));
  const template = literal ? [repl] : parseTemplate(fun, repl, probe.length - 1, names);
  let n = 0;
  const out = text.replace(re, (...args: unknown[]) => {
    const match = args[0] as string;
    if (count > 0 && n >= count) return match;
    n++;
    const last = args[args.length - 1];
    const groups = typeof last === 'object' && last !== null ? (last as Record<string, string | undefined>) : {};
    const numbered = args.slice(1, probe.length) as (string | undefined)[];
    return template.map((p) => (typeof p === 'string' ? p : typeof p.group === 'number' ? (p.group === 0 ? match : (numbered[p.group - 1] ?? '')) : (groups[p.group] ?? ''))).join('');
  });
  return { text: out, n };
}
