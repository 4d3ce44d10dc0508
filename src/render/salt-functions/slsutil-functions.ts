// slsutil.* and defaults.* as salt/modules/slsutil.py and defaults.py define them: the data
// functions formulas call from map.jinja. defaults.get and the slsutil functions that read the
// file server are execution functions of the minion instead (they need its file client).

import { isDict, PyError, str, truthy } from '../jinja/py-values.js';
import { deepCopy, merge, update } from './dictupdate.js';
import { deserialize, serialize } from './serializers.js';
import type { TemplateFunction } from './template-function.js';

const MERGE_PARAMS = [
  { name: 'strategy', default: 'smart' },
  { name: 'renderer', default: 'yaml' },
  { name: 'merge_lists', default: false },
] as const;

/** textwrap.TextWrapper(width).wrap: greedy over words, a word longer than the width broken. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let cur = '';
  for (let word of text.split(/\s+/).filter((w) => w !== '')) {
    while (word.length > width) {
      if (cur !== '') {
        const room = width - cur.length - 1;
        if (room > 0) {
          lines.push(`${cur} ${word.slice(0, room)}`);
          word = word.slice(room);
        } else lines.push(cur);
        cur = '';
        continue;
      }
      lines.push(word.slice(0, width));
      word = word.slice(width);
    }
    if (cur === '') cur = word;
    else if (cur.length + 1 + word.length <= width) cur += ` ${word}`;
    else {
      lines.push(cur);
      cur = word;
    }
  }
  if (cur !== '') lines.push(cur);
  return lines;
}

/** Python's str.center (extra space on the right when the padding is odd and the width even... as CPython does). */
function center(s: string, width: number): string {
  const marg = width - s.length;
  if (marg <= 0) return s;
  const left = Math.floor(marg / 2) + (marg & width & 1);
  return ' '.repeat(left) + s + ' '.repeat(marg - left);
}

function banner(a: Record<string, unknown>): string {
  const width = Number(a.width);
  const commentchar = str(a.commentchar);
  const borderchar = str(a.borderchar);
  const title = a.title === null ? 'THIS FILE IS MANAGED BY SALT - DO NOT EDIT' : str(a.title);
  const text = a.text === null ? 'The contents of this file are managed by Salt. Any changes to this file may be overwritten automatically and without warning.' : str(a.text);
  const ledge = commentchar.trimEnd();
  const redge = commentchar.trim();
  const lgutter = `${ledge} `;
  const rgutter = ` ${redge}`;
  const textwidth = width - lgutter.length - rgutter.length;
  if (textwidth <= 0) throw new PyError('ArgumentValueError: Width is too small to render banner');
  const border = commentchar + borderchar.slice(0, 1).repeat(Math.max(0, width - ledge.length - redge.length)) + redge;
  const spacer = commentchar + ' '.repeat(Math.max(0, width - commentchar.length * 2)) + commentchar;
  const block: string[] = [];
  if (a.blockstart !== null) block.push(str(a.blockstart));
  block.push(border, spacer);
  for (const line of wrap(title, textwidth)) block.push(lgutter + center(line, textwidth) + rgutter);
  block.push(spacer);
  for (const line of wrap(text, textwidth)) block.push(lgutter + line + ' '.repeat(textwidth - line.length) + rgutter);
  block.push(border);
  if (a.blockend !== null) block.push(str(a.blockend));
  const result = block.join('\n');
  return truthy(a.newline) ? `${result}\n` : result;
}

export const SLSUTIL_FUNCTIONS: Record<string, TemplateFunction> = {
  'slsutil.update': {
    doc: 'Merges upd into dest recursively, in place, and returns dest (salt.utils.dictupdate.update).',
    params: [{ name: 'dest' }, { name: 'upd' }, { name: 'recursive_update', default: true }, { name: 'merge_lists', default: false }],
    run: (_h, a) => update(a.dest, a.upd, truthy(a.recursive_update), truthy(a.merge_lists)),
  },
  'slsutil.merge': {
    doc: 'Merges obj_b into a copy of obj_a with a strategy: smart, recurse, overwrite, list, aggregate.',
    params: [{ name: 'obj_a' }, { name: 'obj_b' }, ...MERGE_PARAMS],
    run: (_h, a) => merge(a.obj_a, a.obj_b, str(a.strategy), str(a.renderer), truthy(a.merge_lists)),
  },
  'slsutil.merge_all': {
    doc: 'Merges a list of objects into each other in order, starting from {}.',
    params: [{ name: 'lst' }, ...MERGE_PARAMS],
    run: (_h, a) => {
      if (!Array.isArray(a.lst)) throw new PyError('TypeError: merge_all: lst must be a list');
      let ret: unknown = {};
      for (const obj of a.lst) ret = merge(ret, obj, str(a.strategy), str(a.renderer), truthy(a.merge_lists));
      return ret;
    },
  },
  'slsutil.boolstr': {
    doc: "The `true` string when value is truthy, else the `false` string ('true'/'false' by default).",
    params: [{ name: 'value' }, { name: 'true', default: 'true' }, { name: 'false', default: 'false' }],
    run: (_h, a) => (truthy(a.value) ? a.true : a.false),
  },
  'slsutil.serialize': {
    doc: 'Serializes an object with a Salt serializer (json or yaml; their options as keywords).',
    params: [{ name: 'serializer' }, { name: 'obj' }],
    kwargs: true,
    run: (_h, a, _r, kw) => serialize(a.serializer, a.obj, kw),
  },
  'slsutil.deserialize': {
    doc: 'Deserializes a string with a Salt serializer (json or yaml).',
    params: [{ name: 'serializer' }, { name: 'stream_or_string' }],
    kwargs: true,
    run: (_h, a, _r, kw) => deserialize(a.serializer, a.stream_or_string, kw),
  },
  'slsutil.banner': {
    doc: 'A "managed by Salt, do not edit" comment block for templated files.',
    params: [
      { name: 'width', default: 72 },
      { name: 'commentchar', default: '#' },
      { name: 'borderchar', default: '#' },
      { name: 'blockstart', default: null },
      { name: 'blockend', default: null },
      { name: 'title', default: null },
      { name: 'text', default: null },
      { name: 'newline', default: false },
    ],
    run: (_h, a) => banner(a),
  },
};

export const DEFAULTS_FUNCTIONS: Record<string, TemplateFunction> = {
  'defaults.merge': {
    doc: 'Merges src into dest recursively (in place unless in_place=False) and returns the result.',
    params: [{ name: 'dest' }, { name: 'src' }, { name: 'merge_lists', default: false }, { name: 'in_place', default: true }, { name: 'convert_none', default: true }],
    run: (_h, a) => {
      const convert = truthy(a.convert_none);
      const src = a.src === null && convert ? {} : a.src;
      let dest = a.dest;
      if (dest === null && convert) {
        if (truthy(a.in_place)) throw new PyError("TypeError: Can't perform in-place merge into NoneType");
        dest = {};
      }
      return update(truthy(a.in_place) ? dest : deepCopy(dest), src, true, truthy(a.merge_lists));
    },
  },
  'defaults.deepcopy': {
    doc: 'A deep copy of an object.',
    params: [{ name: 'source' }],
    run: (_h, a) => deepCopy(a.source),
  },
  'defaults.update': {
    doc: 'Merges defaults into every value of dest (a mapping of nodes), in place unless in_place=False.',
    params: [{ name: 'dest' }, { name: 'defaults' }, { name: 'merge_lists', default: true }, { name: 'in_place', default: true }, { name: 'convert_none', default: true }],
    run: (_h, a) => {
      const convert = truthy(a.convert_none);
      let nodes: unknown;
      if (truthy(a.in_place)) {
        if (a.dest === null) throw new PyError("TypeError: Can't perform in-place update into NoneType");
        nodes = a.dest;
      } else nodes = deepCopy(a.dest === null && convert ? {} : a.dest);
      const defaults = a.defaults === null && convert ? {} : a.defaults;
      if (!isDict(nodes)) throw new PyError('AttributeError: defaults.update: dest must be a dictionary of nodes');
      for (const [name, vars] of Object.entries(nodes)) {
        const src = vars === null && convert ? {} : vars;
        nodes[name] = update(deepCopy(defaults), src, true, truthy(a.merge_lists));
      }
      return nodes;
    },
  },
};
