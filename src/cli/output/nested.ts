// Salt's default `nested` outputter, same layout and colours (salt/output/nested.py): dicts as
// `----------` plus sorted `key:` lines with the value 4 deeper, lists as `- item` (or `|_` for a
// nested collection), strings one line per row, None/True/False and numbers in light yellow.

import { palette, stripEsc, type Palette } from './colors.js';
import { isNoReturn, type NoReturn } from './no-return.js';
import { pyNumber, sortedKeys, splitLines } from './py-text.js';

class NestDisplay {
  constructor(
    private readonly c: Palette,
    /** Salt paints keys, dashes and list markers red when the minion's retcode is not 0. */
    private readonly failed: boolean,
  ) {}

  private line(indent: number, color: string, msg: string, prefix = '', suffix = ''): string {
    return `${' '.repeat(indent)}${color}${prefix}${msg}${this.c.ENDC}${suffix}`;
  }

  display(value: unknown, indent: number, prefix: string, out: string[]): string[] {
    const c = this.c;
    if (value === null || value === true || value === false) {
      out.push(this.line(indent, c.LIGHT_YELLOW, value === null ? 'None' : value ? 'True' : 'False', prefix));
    } else if (typeof value === 'number' || typeof value === 'bigint') {
      out.push(this.line(indent, c.LIGHT_YELLOW, pyNumber(value), prefix));
    } else if (typeof value === 'string' || isNoReturn(value)) {
      const text = typeof value === 'string' ? value : value.text;
      splitLines(text).forEach((row, i) => {
        out.push(this.line(indent, c.GREEN, stripEsc(row), i === 0 ? prefix : ' '.repeat(prefix.length)));
      });
    } else if (Array.isArray(value)) {
      const color = this.failed ? c.RED : c.GREEN;
      for (const item of value) {
        if (Array.isArray(item) || isDict(item)) {
          out.push(this.line(indent, color, '|_'));
          this.display(item, indent + 2, isDict(item) ? '' : '- ', out);
        } else {
          this.display(item, indent, '- ', out);
        }
      }
    } else if (isDict(value)) {
      const color = this.failed ? c.RED : c.CYAN;
      if (indent) out.push(this.line(indent, color, '----------'));
      for (const key of sortedKeys(value)) {
        out.push(this.line(indent, color, stripEsc(key), prefix, ':'));
        this.display(value[key], indent + 4, '', out);
      }
    }
    // Anything else (undefined, functions) prints nothing, as Salt does for unknown types.
    return out;
  }
}

function isDict(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isNoReturn(value);
}

/** Salt's no_return outputter: the id in cyan, each line red (colour code before the indent). */
function displayNoReturn(id: string, marker: NoReturn, c: Palette): string {
  const lines = [`${c.CYAN}${stripEsc(id)}${c.ENDC}:`];
  for (const row of marker.text.split('\n')) lines.push(`${c.RED}    ${row}${c.ENDC}`);
  return lines.join('\n');
}

/**
 * Any value laid out from column `indent`, as Salt's nested outputter does with nested_indent
 * (the highstate outputter prints a state's changes this way, from column 14).
 */
export function nestedLines(value: unknown, indent: number, color: boolean): string[] {
  return new NestDisplay(palette(color), false).display(value, indent, '', []);
}

/** One minion's block, as `salt` prints it when that minion's return arrives. */
export function nestedBlock(id: string, value: unknown, opts: { color: boolean; retcode?: number }): string {
  const c = palette(opts.color);
  if (isNoReturn(value)) return displayNoReturn(id, value, c);
  const display = new NestDisplay(c, (opts.retcode ?? 0) !== 0);
  return display.display({ [id]: value }, 0, '', []).join('\n');
}
