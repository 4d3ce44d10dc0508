// salt-run's output: the runner's return printed by the outputter as it is (no minion ID around
// it, as Salt's display_output does), and a return of {outputter, data} printed with that
// outputter (jobs.lookup_jid of a state run, state.orchestrate's highstate), unless --out chose one.

import { yamlPackage } from '../../util/yaml-package.js';
import { stripEsc } from './colors.js';
import { format, type FormatOptions, type Outputter } from './format.js';
import { nestedLines } from './nested.js';
import { pyJsonDumps } from './py-json.js';
import { pyRepr, pyStr, splitLines } from './py-text.js';

function isOutputterReturn(v: unknown): v is { outputter: string; data: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { outputter?: unknown }).outputter === 'string' && Object.hasOwn(v, 'data');
}

/** The text salt-run prints for a runner's return (ending in a newline). */
export function formatRunnerReturn(outputter: Outputter | undefined, value: unknown, opts: FormatOptions): string {
  let out = outputter ?? 'nested';
  let data = value;
  if (isOutputterReturn(value)) {
    data = value.data;
    if (outputter === undefined) out = value.outputter as Outputter;
  }
  switch (out) {
    case 'json': {
      const indent = opts.indent === undefined ? 4 : opts.indent < 0 ? null : Math.floor(opts.indent);
      return `${pyJsonDumps(data, indent)}\n`;
    }
    case 'yaml':
      return yamlPackage().stringify(data, { indent: 2, sortMapEntries: true, singleQuote: true, lineWidth: 0 });
    case 'raw':
      return `${pyRepr(data)}\n`;
    case 'txt':
    case 'newline_values_only': {
      const items = out === 'newline_values_only' && Array.isArray(data) ? data : [data];
      return `${items.map((v) => (typeof v === 'string' ? splitLines(v).map(stripEsc).join('\n') : stripEsc(pyStr(v)))).join('\n')}\n`;
    }
    case 'highstate':
      // per minion ({id: states}), as the orchestrate runner returns it
      if (typeof data === 'object' && data !== null && !Array.isArray(data)) return format('highstate', data as Record<string, unknown>, opts);
      return `${nestedLines(data, 0, opts.color).join('\n')}\n`;
    default:
      return `${nestedLines(data, 0, opts.color).join('\n')}\n`;
  }
}
