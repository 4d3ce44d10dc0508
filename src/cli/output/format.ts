// `--out` outputters for minion returns. Salt prints each minion's return as its own block when
// it arrives; format() does the same for a batch, formatReturn() for one streamed return.

import { yamlPackage } from '../../util/yaml-package.js';
import { BrineError } from '../../util/errors.js';
import { stripEsc } from './colors.js';
import type { HighstateOptions } from './highstate-options.js';
import { highstateBlock } from './highstate.js';
import { nestedBlock } from './nested.js';
import { isNoReturn } from './no-return.js';
import { pyJsonDumps } from './py-json.js';
import { pyRepr, pyStr, splitLines } from './py-text.js';

export type Outputter = 'nested' | 'json' | 'yaml' | 'txt' | 'raw' | 'newline_values_only' | 'highstate';

export interface FormatOptions {
  color: boolean;
  /** `--out-indent` for json and yaml: spaces per level; negative puts each minion on one line. */
  indent?: number;
  /** Retcode per minion; nested output paints a failed minion's structure red, as Salt does. */
  retcodes?: Readonly<Record<string, number>>;
  /** The highstate outputter's settings (state_output, state_verbose); Salt's defaults when absent. */
  state?: HighstateOptions;
}

type BlockFormatter = (id: string, value: unknown, opts: FormatOptions) => string;

/** Outside nested output a no-return marker is just its text, as with Salt's --out json. */
function plain(value: unknown): unknown {
  return isNoReturn(value) ? value.text : value;
}

function single(id: string, value: unknown): Record<string, unknown> {
  const obj: Record<string, unknown> = {};
  Object.defineProperty(obj, id, { value: plain(value), enumerable: true, writable: true, configurable: true });
  return obj;
}

const jsonBlock: BlockFormatter = (id, value, opts) => {
  // Salt's default is indent 4; a negative --out-indent means one line per minion.
  const indent = opts.indent === undefined ? 4 : opts.indent < 0 ? null : Math.floor(opts.indent);
  return pyJsonDumps(single(id, value), indent);
};

const yamlBlock: BlockFormatter = (id, value, opts) => {
  const flow = opts.indent !== undefined && opts.indent < 0;
  // PyYAML accepts indents of 2 to 9 and uses 2 otherwise.
  const indent = opts.indent !== undefined && opts.indent >= 2 && opts.indent <= 9 ? Math.floor(opts.indent) : 2;
  return yamlPackage().stringify(single(id, value), {
    indent,
    sortMapEntries: true,
    singleQuote: true,
    lineWidth: 0,
    collectionStyle: flow ? 'flow' : 'any',
    flowCollectionPadding: false,
  });
};

const txtBlock: BlockFormatter = (id, value) => {
  const v = plain(value);
  if (typeof v === 'string')
    return splitLines(v)
      .map((row) => `${id}: ${stripEsc(row)}`)
      .join('\n');
  return `${id}: ${stripEsc(pyStr(v))}`;
};

const rawBlock: BlockFormatter = (id, value) => pyRepr(single(id, value));

/** Salt's newline_values_only: the values without IDs, one per line; a list gives one line per item. */
const newlineValuesBlock: BlockFormatter = (_id, value) => {
  const v = plain(value);
  const items = Array.isArray(v) ? v : [v];
  return items.map((item) => stripEsc(pyStr(item))).join('\n');
};

const nested: BlockFormatter = (id, value, opts) => {
  const retcode = opts.retcodes && Object.hasOwn(opts.retcodes, id) ? opts.retcodes[id] : undefined;
  return nestedBlock(id, value, retcode === undefined ? { color: opts.color } : { color: opts.color, retcode });
};

const highstate: BlockFormatter = (id, value, opts) => highstateBlock(id, value, opts.state === undefined ? { color: opts.color } : { color: opts.color, state: opts.state });

const OUTPUTTERS: ReadonlyMap<string, BlockFormatter> = new Map([
  ['nested', nested],
  ['json', jsonBlock],
  ['yaml', yamlBlock],
  ['txt', txtBlock],
  ['raw', rawBlock],
  ['newline_values_only', newlineValuesBlock],
  ['highstate', highstate],
]);

export function outputterNames(): string[] {
  return [...OUTPUTTERS.keys()];
}

function formatterFor(outputter: string): BlockFormatter {
  const f = OUTPUTTERS.get(outputter);
  if (!f) throw new BrineError('USAGE', `unknown outputter ${JSON.stringify(outputter)}; use one of ${outputterNames().join(', ')}`);
  return f;
}

/** One minion's block without a trailing newline (Salt rstrips each block); '' prints nothing. */
export function formatReturn(outputter: Outputter, id: string, value: unknown, opts: FormatOptions): string {
  return formatterFor(outputter)(id, value, opts).trimEnd();
}

/** Every minion's block in the order given, each ending in a newline; empty blocks are skipped. */
export function format(outputter: Outputter, data: Record<string, unknown>, opts: FormatOptions): string {
  const f = formatterFor(outputter);
  let out = '';
  for (const [id, value] of Object.entries(data)) {
    const block = f(id, value, opts).trimEnd();
    if (block !== '') out += `${block}\n`;
  }
  return out;
}

/**
 * --static: everything at once. json, yaml and raw print one document holding every minion (as
 * Salt's static output does); the line-oriented outputters print each minion's block in turn.
 */
export function formatStatic(outputter: Outputter, data: ReadonlyMap<string, unknown>, opts: FormatOptions): string {
  if (outputter === 'json' || outputter === 'yaml' || outputter === 'raw') {
    const all: Record<string, unknown> = {};
    for (const [id, value] of data) Object.defineProperty(all, id, { value: plain(value), enumerable: true, writable: true, configurable: true });
    if (outputter === 'json') {
      const indent = opts.indent === undefined ? 4 : opts.indent < 0 ? null : Math.floor(opts.indent);
      return `${pyJsonDumps(all, indent)}\n`;
    }
    if (outputter === 'raw') return `${pyRepr(all)}\n`;
    return yamlPackage().stringify(all, { indent: 2, sortMapEntries: true, singleQuote: true, lineWidth: 0 });
  }
  const f = formatterFor(outputter);
  let out = '';
  for (const [id, value] of data) {
    const block = f(id, value, opts).trimEnd();
    if (block !== '') out += `${block}\n`;
  }
  return out;
}
