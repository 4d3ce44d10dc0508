// file.keyvalue: `key<separator>value` lines of a config file hold the given values, the matched
// key kept as written, optionally uncommenting and appending/prepending missing keys. A port of
// Salt 3007's salt/states/file.py keyvalue(), whose line-by-line rules and "- / +" diff it keeps.

import { readFileSync } from 'node:fs';
import { defineState } from '../types.js';
import { errorText } from './file-result.js';
import { writeAtomic, writeTarget } from './file-write.js';

/** Python's str(value) for the values YAML gives (True, None, 1.5, lists as repr). */
export function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return `[${v.map((x) => (typeof x === 'string' ? `'${x}'` : pyStr(x))).join(', ')}]`;
  return String(v);
}

function pyType(v: unknown): string {
  if (typeof v === 'boolean') return 'bool';
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (Array.isArray(v)) return 'list';
  return typeof v === 'object' ? 'dict' : 'str';
}

/** Python's str.lstrip(chars); chars undefined strips whitespace, as lstrip(None) does. */
function lstrip(s: string, chars: string | undefined): string {
  let i = 0;
  while (i < s.length && (chars === undefined ? /\s/.test(s[i]!) : chars.includes(s[i]!))) i++;
  return s.slice(i);
}

/** Python's str.partition(sep). */
function partition(s: string, sep: string): [string, string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, '', ''] : [s.slice(0, i), sep, s.slice(i + sep.length)];
}

export interface KeyvalueOptions {
  keyValues: Record<string, unknown>;
  separator: string;
  appendIfNotFound: boolean;
  prependIfNotFound: boolean;
  count: number;
  uncomment: string | undefined;
  keyIgnoreCase: boolean;
  valueIgnoreCase: boolean;
}

/** Pure: the new lines, Salt's diff entries and the number of lines changed. */
export function editKeyValues(lines: readonly string[], o: KeyvalueOptions): { content: string[]; diff: string[]; changes: number } {
  const diff: string[] = [];
  const content: string[] = [];
  const line = (key: string, sep: string, value: unknown) => `${key}${sep}${pyStr(value)}\n`;
  let changes = 0;
  const left = new Map(Object.keys(o.keyValues).map((k) => [k, o.count]));
  for (const original of lines) {
    let current = original;
    let testLine = lstrip(original, o.uncomment);
    const didUncomment = original.length > testLine.length;
    if (o.keyIgnoreCase) testLine = testLine.toLowerCase();
    for (const [key, value] of Object.entries(o.keyValues)) {
      const testKey = o.keyIgnoreCase ? key.toLowerCase() : key;
      if (!testLine.startsWith(testKey)) continue;
      const working = didUncomment ? lstrip(original, o.uncomment) : original;
      const [lineKey, lineSep, rawValue] = partition(working, o.separator);
      if (lineSep !== o.separator) continue;
      if ((o.keyIgnoreCase ? lineKey.toLowerCase() : lineKey) !== testKey) continue;
      let lineValue = rawValue.trim();
      let testValue = pyStr(value).trim();
      if (o.valueIgnoreCase) {
        lineValue = lineValue.toLowerCase();
        testValue = testValue.toLowerCase();
      }
      let valuesMatch = lineValue === testValue;
      let needsChanging = false;
      const n = left.get(key)!;
      if (didUncomment) {
        if (n > 0) needsChanging = true;
        else if (!valuesMatch) valuesMatch = true;
      } else if (n === 0) needsChanging = true;
      if (!valuesMatch || needsChanging) {
        diff.push(`- ${current}`);
        current = '';
        if (n !== 0) {
          current = line(lineKey, lineSep, value);
          diff.push(typeof value === 'string' ? `+ ${current}` : `+ ${current.trimEnd()} (from ${pyType(value)} type)\n`);
        }
        changes++;
      }
      if (n > 0) left.set(key, n - 1);
      // Salt goes on to the next key (no break): a line can match several keys under key_ignore_case.
    }
    if (current !== '') content.push(current);
  }
  if (o.appendIfNotFound) {
    const added: string[] = [];
    for (const [key, value] of Object.entries(o.keyValues)) {
      if (left.get(key)! > 0) {
        const l = line(key, o.separator, value);
        added.push(`+ ${l}`);
        content.push(l);
        changes++;
      }
    }
    if (added.length > 0) diff.push('- <EOF>\n', ...added, '+ <EOF>\n');
  } else if (o.prependIfNotFound) {
    let marked = false;
    for (const [key, value] of Object.entries(o.keyValues)) {
      if (left.get(key)! > 0) {
        const l = line(key, o.separator, value);
        if (!marked) {
          diff.unshift('  <SOF>\n');
          marked = true;
        }
        diff.splice(1, 0, `+ ${l}`);
        content.unshift(l);
        changes++;
      }
    }
  }
  return { content, diff, changes };
}

export const fileKeyvalue = defineState({
  name: 'file.keyvalue',
  doc: 'Make sure key/value lines of a file hold the given values (e.g. sshd_config settings).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'path of the file' },
    { name: 'key', type: 'any', doc: 'the key (with value)' },
    { name: 'value', type: 'any', doc: 'the value for key' },
    { name: 'key_values', type: 'any', doc: 'a map of keys to values (instead of key and value)' },
    { name: 'separator', type: 'string', default: '=', doc: 'what separates key from value' },
    { name: 'append_if_not_found', type: 'bool', default: false, doc: 'append missing keys at the end' },
    { name: 'prepend_if_not_found', type: 'bool', default: false, doc: 'prepend missing keys at the start' },
    { name: 'search_only', type: 'bool', default: false, doc: 'accepted, as Salt does (it has no effect there either)' },
    { name: 'show_changes', type: 'bool', default: true, doc: 'put the diff in changes' },
    { name: 'ignore_if_missing', type: 'bool', default: false, doc: 'succeed when the file cannot be read' },
    { name: 'count', type: 'int', default: 1, doc: 'occurrences kept and corrected; -1 all; 0 removes every line with the key' },
    { name: 'uncomment', type: 'string', doc: 'characters stripped from the start of a line when looking for keys (a set, not a prefix)' },
    { name: 'key_ignore_case', type: 'bool', default: false, doc: 'match keys case-insensitively' },
    { name: 'value_ignore_case', type: 'bool', default: false, doc: 'compare values case-insensitively' },
  ],
  example:
    "sshd_config_harden:\n  file.keyvalue:\n    - name: /etc/ssh/sshd_config\n    - key_values:\n        permitrootlogin: 'without-password'\n        LoginGraceTime: '1m'\n    - separator: ' '\n    - uncomment: '# '\n    - key_ignore_case: True\n    - append_if_not_found: True",
  run: async (ctx, { named: a }) => {
    const name = a.name;
    const err = (comment: string) => ({ name, result: false, changes: {}, comment });
    if (!name) return err('Must provide name to file.keyvalue');
    let keyValues: Record<string, unknown>;
    const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
    if (a.key !== undefined && a.key !== null && a.value !== undefined && a.value !== null) {
      if (isDict(a.key_values)) return err('file.keyvalue can not combine key_values with key and value');
      keyValues = { [pyStr(a.key)]: a.value };
    } else if (!isDict(a.key_values) || Object.keys(a.key_values).length === 0) {
      const empty = a.key_values === undefined || a.key_values === null || (isDict(a.key_values) && Object.keys(a.key_values).length === 0) || a.key_values === '';
      return err(`file.keyvalue key and value not supplied and key_values ${empty ? 'is empty' : 'is not a dictionary'}`);
    } else keyValues = a.key_values;
    let text: string;
    try {
      text = readFileSync(name, 'utf8');
    } catch {
      return { name, result: a.ignore_if_missing, changes: {}, comment: `unable to open ${name}` };
    }
    const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
    const r = editKeyValues(lines, {
      keyValues,
      separator: a.separator,
      appendIfNotFound: a.append_if_not_found,
      prependIfNotFound: a.prepend_if_not_found,
      count: a.count,
      uncomment: a.uncomment ?? undefined,
      keyIgnoreCase: a.key_ignore_case,
      valueIgnoreCase: a.value_ignore_case,
    });
    if (r.changes === 0) return { name, result: true, changes: {}, comment: '' };
    const changes: Record<string, unknown> = a.show_changes ? { diff: r.diff.join('') } : {};
    if (ctx.test) {
      let comment = `File ${name} is set to be changed (${r.changes} lines)`;
      if (a.show_changes) comment += `\nPredicted diff:\n\r\t\t${r.diff.join('\r\t\t')}`;
      return { name, result: null, changes, comment };
    }
    try {
      await writeAtomic(await writeTarget(name), r.content.join(''));
    } catch (e) {
      return { name, result: false, changes, comment: `${name} not writable: ${errorText(e)}` };
    }
    return { name, result: true, changes, comment: `Changed ${r.changes} lines` };
  },
});
