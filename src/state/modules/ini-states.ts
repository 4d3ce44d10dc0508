// The ini.* states (Salt 3007's salt/states/ini_manage.py): options and sections of an ini file
// present or absent, through the ini execution module, with Salt's comments in test and real mode
// (one line per key in test mode, "Changes take effect" after a change).

import { defineParams } from '../../modules/index.js';
import { iniText } from '../../modules/ini-file.js';
import { BrineError } from '../../util/errors.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { callFn, failingSoftly } from './state-result.js';

type Data = Record<string, unknown>;
const isMapping = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);
// Salt compares with "#-#-" standing for a missing option
const MISSING = '#-#-';

const PARAMS = defineParams([
  { name: 'name', type: 'string', required: true, doc: 'the ini file' },
  { name: 'sections', type: 'any', doc: 'the sections (and options outside any section) to manage' },
  { name: 'separator', type: 'string', default: '=', doc: "between key and value ('=' by default)" },
]);

/** Calls an ini.* function; a failure (unreadable file, bad argument) becomes the state's failure. */
async function ini<T>(ctx: StateContext, fun: string, ...arg: unknown[]): Promise<T> {
  const r = await callFn<T>(ctx, `ini.${fun}`, arg);
  if (!r.ok) throw new BrineError('EXEC_FAILED', r.message);
  return r.value;
}

/** Salt iterates a list's items or a mapping's keys (and a string's characters). */
const keysOf = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : isMapping(v) ? Object.keys(v) : typeof v === 'string' ? [...v] : []);

async function optionsPresent(ctx: StateContext, name: string, sections: unknown, sep: string, strict: boolean): Promise<StateResult> {
  const ret: StateResult = { name, result: true, changes: {}, comment: ctx.test ? '' : 'No anomaly detected' };
  const changes: Data = {};
  if (isMapping(sections) && Object.keys(sections).length > 0) {
    const options = Object.fromEntries(Object.entries(sections).filter(([, v]) => !isMapping(v)));
    const cur = await ini<Data>(ctx, 'get_ini', name, sep);
    const topLevel = Object.fromEntries(Object.entries(cur).filter(([, v]) => !isMapping(v)));
    if (ctx.test) {
      for (const [opt, v] of Object.entries(options)) {
        const same = Object.hasOwn(topLevel, opt) && iniText(topLevel[opt]) === iniText(v);
        ret.comment += `${same ? 'Unchanged' : 'Changed'} key ${opt}.\n`;
        if (!same) ret.result = null;
      }
    } else Object.assign(changes, await ini<Data>(ctx, 'set_option', name, options, sep));
    if (strict) {
      for (const opt of Object.keys(topLevel).filter((k) => !Object.hasOwn(options, k))) {
        if (ctx.test) {
          ret.comment += `Removed key ${opt}.\n`;
          ret.result = null;
        } else {
          await ini(ctx, 'remove_option', name, null, opt, sep);
          changes[opt] = { before: topLevel[opt], after: null };
        }
      }
    }
    for (const [sname, body] of Object.entries(sections)) {
      if (!isMapping(body)) continue;
      const descr = sname ? ` in section ${sname}` : '';
      const original = isMapping(cur[sname]) ? cur[sname] : {};
      const mine: Data = {};
      changes[sname] = mine;
      if (strict) {
        for (const key of Object.keys(original).filter((k) => !Object.hasOwn(body, k))) {
          if (ctx.test) {
            ret.comment += `Deleted key ${key}${descr}.\n`;
            ret.result = null;
          } else {
            await ini(ctx, 'remove_option', name, sname, key, sep);
            mine[key] = { before: original[key], after: null };
          }
        }
      }
      if (ctx.test) {
        for (const [opt, v] of Object.entries(body)) {
          const same = iniText(v) === iniText(Object.hasOwn(original, opt) ? original[opt] : MISSING);
          ret.comment += `${same ? 'Unchanged' : 'Changed'} key ${opt}${descr}.\n`;
          if (!same) ret.result = null;
        }
      } else {
        const updated = await ini<Data>(ctx, 'set_option', name, { [sname]: body }, sep);
        if (isMapping(updated[sname])) Object.assign(mine, updated[sname]);
        if (Object.keys(mine).length === 0) delete changes[sname];
      }
    }
  } else if (!ctx.test) Object.assign(changes, await ini<Data>(ctx, 'set_option', name, sections ?? {}, sep));
  if ('error' in changes) return { ...ret, result: false, comment: `Errors encountered. ${iniText(changes.error)}`, changes: {} };
  for (const [key, body] of Object.entries(changes)) {
    if (isMapping(body) ? Object.keys(body).length === 0 : !body) continue;
    ret.comment = 'Changes take effect';
    ret.changes[key] = body;
  }
  return ret;
}

async function optionsAbsent(ctx: StateContext, name: string, sections: unknown, sep: string): Promise<StateResult> {
  const all = isMapping(sections) ? sections : {};
  if (ctx.test) {
    const ret: StateResult = { name, result: true, changes: {}, comment: '' };
    for (const [section, keys] of Object.entries(all)) {
      if (Array.isArray(keys)) {
        const descr = section ? ` in section ${section}` : '';
        const cur = await ini<Data>(ctx, 'get_section', name, section, sep);
        for (const key of keys.map(String)) {
          if (!cur[key]) {
            ret.comment += `Key ${key}${descr} does not exist.\n`;
            continue;
          }
          ret.comment += `Deleted key ${key}${descr}.\n`;
          ret.result = null;
        }
      } else if (!(await ini<unknown>(ctx, 'get_option', name, null, section, sep))) {
        ret.comment += `Key ${section} does not exist.\n`;
      } else {
        ret.comment += `Deleted key ${section}.\n`;
        ret.result = null;
      }
    }
    return { ...ret, comment: ret.comment || 'No changes detected.' };
  }
  const ret: StateResult = { name, result: true, changes: {}, comment: 'No anomaly detected' };
  for (const [section, keys] of Object.entries(all)) {
    for (const key of keysOf(keys)) {
      const value = await ini<unknown>(ctx, 'remove_option', name, section, key, sep);
      if (!value) continue;
      const mine = isMapping(ret.changes[section]) ? (ret.changes[section] as Data) : {};
      mine[key] = value;
      // A top-level option (not a list of keys) reports its removed value directly
      ret.changes[section] = Array.isArray(keys) ? mine : value;
      ret.comment = 'Changes take effect';
    }
  }
  return ret;
}

/** The test=True answer of sections_present/absent: a line per section, None if one would change. */
async function sectionsForecast(ctx: StateContext, name: string, sep: string, wanted: string[], line: (has: boolean, s: string) => [string, boolean]): Promise<StateResult> {
  const cur = await ini<Data>(ctx, 'get_ini', name, sep);
  const ret: StateResult = { name, result: true, changes: {}, comment: '' };
  for (const s of wanted) {
    const [text, changes] = line(Object.hasOwn(cur, s), s);
    ret.comment += `${text}\n`;
    if (changes) ret.result = null;
  }
  return { ...ret, comment: ret.comment || 'No changes detected.' };
}

async function sectionsPresent(ctx: StateContext, name: string, sections: unknown, sep: string): Promise<StateResult> {
  const wanted = keysOf(sections);
  if (ctx.test) return sectionsForecast(ctx, name, sep, wanted, (has, s) => (has ? [`Section unchanged ${s}.`, false] : [`Created new section ${s}.`, true]));
  const changes = await ini<Data>(ctx, 'set_option', name, Object.fromEntries(wanted.map((s) => [s, {}])), sep);
  return { name, result: true, changes, comment: 'Changes take effect' };
}

async function sectionsAbsent(ctx: StateContext, name: string, sections: unknown, sep: string): Promise<StateResult> {
  const wanted = keysOf(sections);
  if (ctx.test) return sectionsForecast(ctx, name, sep, wanted, (has, s) => (has ? [`Deleted section ${s}.`, true] : [`Section ${s} does not exist.`, false]));
  const ret: StateResult = { name, result: true, changes: {}, comment: 'No anomaly detected' };
  for (const s of wanted) {
    const removed = await ini<Data | null>(ctx, 'remove_section', name, s, sep);
    // Salt skips an empty section here (it is removed, but not reported)
    if (!removed || Object.keys(removed).length === 0) continue;
    ret.changes[s] = removed;
    ret.comment = 'Changes take effect';
  }
  return ret;
}

const EXAMPLE_FILE = '/etc/systemd/resolved.conf';

export const iniStates: readonly StateFunction[] = [
  defineState({
    name: 'ini.options_present',
    doc: 'Options of an ini file set (sections: {section: {key: value}}); strict removes the others.',
    params: [...PARAMS, { name: 'strict', type: 'bool', default: false, doc: 'remove the options of the given sections (and top-level ones) that are not listed' }],
    example: `${EXAMPLE_FILE}:\n  ini.options_present:\n    - separator: '='\n    - strict: True\n    - sections:\n        Resolve:\n          DNS: 192.0.2.53\n          LLMNR: 'no'`,
    run: (ctx, a) => optionsPresent(ctx, a.named.name, a.named.sections, a.named.separator, a.named.strict),
  }),
  defineState({
    name: 'ini.options_absent',
    doc: 'Options of an ini file removed (sections: {section: [key, ...]}, or {key: ...} outside sections).',
    params: PARAMS,
    example: `${EXAMPLE_FILE}:\n  ini.options_absent:\n    - sections:\n        Resolve:\n          - DNSSEC`,
    run: (ctx, a) => optionsAbsent(ctx, a.named.name, a.named.sections, a.named.separator),
  }),
  defineState({
    name: 'ini.sections_present',
    doc: 'Sections of an ini file present (created empty when missing).',
    params: PARAMS,
    example: '/etc/app.ini:\n  ini.sections_present:\n    - sections:\n      - main\n      - logging',
    run: (ctx, a) => sectionsPresent(ctx, a.named.name, a.named.sections, a.named.separator),
  }),
  defineState({
    name: 'ini.sections_absent',
    doc: 'Sections of an ini file removed with their options.',
    params: PARAMS,
    example: '/etc/app.ini:\n  ini.sections_absent:\n    - sections:\n      - legacy',
    run: (ctx, a) => sectionsAbsent(ctx, a.named.name, a.named.sections, a.named.separator),
  }),
].map(failingSoftly);
