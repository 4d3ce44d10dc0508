// Salt's highstate outputter (salt/output/highstate.py), same layout and colours: per minion the
// states in __run_num__ order (full, terse or mixed per state_output), then the summary block.
// A list return is a compile failure and prints as "Data failed to compile:".

import { palette, stripEsc, type Palette } from './colors.js';
import { DEFAULT_HIGHSTATE_OPTIONS, type HighstateOptions } from './highstate-options.js';
import { summaryLines, type ResultCounts } from './highstate-summary.js';
import { nestedBlock, nestedLines } from './nested.js';
import { isNoReturn } from './no-return.js';
import { pyNumber, pyRepr, pyStr, splitLines } from './py-text.js';

type StateRet = Record<string, unknown> & { result: unknown; changes?: unknown; comment?: unknown };

function isDict(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isNoReturn(value);
}

/** Python's str() of a state's duration: Salt's durations are floats, so 12 prints as 12.0. */
function durationText(d: unknown): string {
  if (typeof d === 'number') return Number.isInteger(d) && Math.abs(d) < 1e16 ? `${pyNumber(d)}.0` : pyNumber(d);
  return pyStr(d);
}

/** float(duration), accepting Salt's old "12.3 ms" strings; undefined when it is not a number. */
function durationMs(d: unknown): number | undefined {
  if (typeof d === 'number') return d;
  if (typeof d !== 'string') return undefined;
  const n = Number(d.split(' ms')[0]);
  return d.trim() === '' || Number.isNaN(n) ? undefined : n;
}

/** Salt's _format_changes: nothing for no changes, else the nested outputter from column 14. */
function formatChanges(changes: unknown, color: boolean): { changed: boolean; text: string } {
  const empty = changes === undefined || changes === null || changes === false || changes === '' || changes === 0 || (typeof changes === 'object' && Object.keys(changes).length === 0);
  if (empty) return { changed: false, text: '' };
  if (!isDict(changes)) return { changed: true, text: `Invalid Changes data: ${stripEsc(pyStr(changes))}` };
  return { changed: true, text: `\n${nestedLines(changes, 14, color).join('\n')}` };
}

/** Python's textwrap.fill for warnings: greedy on whitespace, width 80, every line indented. */
function fill(text: string, width: number, indent: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    if (line !== '' && indent.length + line.length + 1 + w.length > width) {
      lines.push(indent + line);
      line = w;
    } else line = line === '' ? w : `${line} ${w}`;
  }
  if (line !== '') lines.push(indent + line);
  return lines.join('\n');
}

function commentText(ret: StateRet): string {
  let comment = stripEsc(pyStr(ret.comment ?? ''))
    .trim()
    .replace(/\n/g, `\n${' '.repeat(14)}`);
  // Salt appends a `data` attribute to the comment.
  const data = ret.data;
  if (Array.isArray(data)) for (const item of data) comment = `${comment} ${stripEsc(pyStr(item))}`;
  else if (isDict(data)) for (const [k, v] of Object.entries(data)) comment = `${comment}\n\t\t${stripEsc(k)}: ${stripEsc(pyStr(v))}`;
  else if (data !== undefined) comment = `${comment} ${stripEsc(pyStr(data))}`;
  return comment;
}

/** The one-line form: `  Name: x - Function: file.managed - Result: Changed - Started: ... ms`. */
function terseLine(tcolor: string, comps: string[], ret: StateRet, c: Palette): string {
  let result = ret.changes && (typeof ret.changes !== 'object' || Object.keys(ret.changes).length > 0) ? 'Changed' : 'Clean';
  if (ret.result === false) result = 'Failed';
  else if (ret.result === null) result = 'Differs';
  let msg = ` ${tcolor} Name: ${comps[2]} - Function: ${comps[0]}.${comps[comps.length - 1]} - Result: ${result}`;
  if ('start_time' in ret) msg += ` - Started: ${stripEsc(pyStr(ret.start_time))} - Duration: ${stripEsc(durationText(ret.duration ?? ''))} ms`;
  return msg + c.ENDC;
}

/**
 * One state's terse line as the highstate outputter prints it (its colour too), for a state that
 * just finished (brine run --progress); `tag` is the state_|-id_|-name_|-fun key.
 */
export function terseStateLine(tag: string, ret: Record<string, unknown>, color: boolean): string {
  const c = palette(color);
  const state = ret as StateRet;
  let tcolor = formatChanges(state.changes, false).changed ? c.CYAN : c.GREEN;
  if (state.result === false) tcolor = c.RED;
  if (state.result === null) tcolor = c.LIGHT_YELLOW;
  return terseLine(tcolor, tag.split('_|-').map(stripEsc), state, c);
}

function fullLines(tcolor: string, comps: string[], ret: StateRet, changesText: string, c: Palette): string[] {
  const E = c.ENDC;
  const lines = [`${tcolor}----------${E}`, `    ${tcolor}      ID: ${comps[1]}${E}`, `    ${tcolor}Function: ${comps[0]}.${comps[3] ?? ''}${E}`];
  if (comps[1] !== comps[2]) lines.push(`    ${tcolor}    Name: ${comps[2]}${E}`);
  lines.push(`    ${tcolor}  Result: ${pyStr(ret.result)}${E}`, `    ${tcolor} Comment: ${commentText(ret)}${E}`);
  if ('start_time' in ret) {
    const duration = ret.duration === undefined || ret.duration === '' ? '' : `${stripEsc(durationText(ret.duration))} ms`;
    lines.push(`    ${tcolor} Started: ${stripEsc(pyStr(ret.start_time))}${E}`, `    ${tcolor}Duration: ${duration}${E}`);
  }
  lines.push(`${tcolor}     Changes:   ${changesText}${E}`);
  return lines;
}

/** Which form a state prints in: 'skip', 'terse' or 'full' (Salt's state_output rules). */
function formFor(opts: HighstateOptions, ret: StateRet, changed: boolean): 'skip' | 'terse' | 'full' {
  const mode = opts.output;
  const result = pyStr(ret.result);
  if (mode.startsWith('filter')) {
    if (opts.terse.includes(result)) return 'terse';
    if (opts.exclude.includes(result)) return 'skip';
    return 'full';
  }
  if (mode.startsWith('terse')) return 'terse';
  if (mode.startsWith('mixed') && ret.result !== false) return 'terse';
  if (mode.startsWith('changes') && ret.result && !changed) return 'terse';
  return 'full';
}

function formatStates(data: Record<string, unknown>, opts: HighstateOptions, c: Palette, color: boolean): { lines: string[]; hcolor: string; counts: ResultCounts } {
  const lines: string[] = [];
  const counts: ResultCounts = { True: 0, False: 0, None: 0, warnings: 0, changed: 0, durations: 0 };
  let hcolor = c.GREEN;
  const states: [string, StateRet][] = [];
  for (const [tag, info] of Object.entries(data)) {
    if (isDict(info) && tag !== 'changes' && Object.keys(info).length > 0 && !('__run_num__' in info)) {
      lines.unshift('The State execution failed to record the order in which all states were executed. The state return missing data is:', stripEsc(pyRepr(info)));
    }
    if (isDict(info) && 'result' in info) states.push([tag, info as StateRet]);
  }
  const runNum = (r: StateRet): number => (typeof r.__run_num__ === 'number' ? r.__run_num__ : 0);
  states.sort((a, b) => runNum(a[1]) - runNum(b[1]));

  for (const [tag, ret] of states) {
    const key = ret.result === true ? 'True' : ret.result === false ? 'False' : ret.result === null ? 'None' : undefined;
    if (key) counts[key] += 1;
    counts.durations += durationMs(ret.duration ?? 0) ?? 0;
    const { changed, text } = formatChanges(ret.changes, color);
    if (changed) counts.changed += 1;
    if (!opts.verbose && ret.result && !changed) continue;

    let tcolor = changed ? c.CYAN : c.GREEN;
    if (ret.result === false) hcolor = tcolor = c.RED;
    if (ret.result === null) hcolor = tcolor = c.LIGHT_YELLOW;
    const comps = tag.split('_|-').map(stripEsc);
    if (opts.output.endsWith('_id')) comps[2] = comps[1] ?? '';

    const form = formFor(opts, ret, changed);
    if (form === 'skip') continue;
    if (form === 'terse') {
      lines.push(terseLine(tcolor, comps, ret, c));
      continue;
    }
    lines.push(...fullLines(tcolor, comps, ret, text, c));
    if (Array.isArray(ret.warnings)) {
      counts.warnings += 1;
      const wrapped = fill(ret.warnings.map((w) => stripEsc(pyStr(w))).join('\n'), 80, ' '.repeat(14)).trimStart();
      lines.push(`   ${c.LIGHT_RED} Warnings: ${wrapped}${c.ENDC}`);
    }
  }
  return { lines, hcolor, counts };
}

/** One minion's block, as Salt's highstate outputter prints it (no trailing newline). */
export function highstateBlock(host: string, data: unknown, opts: { color: boolean; state?: HighstateOptions }): string {
  const c = palette(opts.color);
  const state = opts.state ?? DEFAULT_HIGHSTATE_OPTIONS;
  let hcolor = c.GREEN;
  let lines: string[] = [];
  // A minion that did not return prints as Salt's no_return outputter, whatever --out says.
  if (isNoReturn(data)) return nestedBlock(host, data, { color: opts.color });
  if (typeof data === 'number' || typeof data === 'string') {
    // A plain value (an error message, a function's text) is printed as it is.
    const rows = typeof data === 'number' ? [pyNumber(data)] : splitLines(data);
    lines = rows.map((row) => `${hcolor}    ${stripEsc(row)}${c.ENDC}`);
    hcolor = c.CYAN;
  } else if (Array.isArray(data)) {
    hcolor = c.LIGHT_RED;
    lines.push(`    ${hcolor}Data failed to compile:${c.ENDC}`);
    for (const err of data) lines.push(`${hcolor}----------\n    ${stripEsc(pyStr(err))}${c.ENDC}`);
  } else if (isDict(data)) {
    const states = formatStates(data, state, c, opts.color);
    hcolor = states.hcolor;
    lines = [...states.lines, ...summaryLines(host, states.counts, c)];
  }
  return [`${hcolor}${stripEsc(host)}:${c.ENDC}`, ...lines].join('\n');
}
