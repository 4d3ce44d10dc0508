// Salt's stateconf renderer driver (salt/renderers/stateconf.py render()): parses the renderer's
// options (`-G -o -s -p` and `<data renderer> . <template renderer>`), renders the text before the
// "end of state config" marker once to collect the `stateconf.set` arguments, then renders the
// whole file with those arguments (and `sls_dir`) in the template context, and rewrites the data.

import { BrineError } from '../../util/errors.js';
import type { RenderEnv } from '../types.js';
import {
  addGoalState,
  addImplicitRequires,
  addStartState,
  extractStateConfs,
  firstNamesDecl,
  type High,
  newStateconfMemory,
  renameStateIds,
  rewriteIncludesExcludes,
  rewriteShorthand,
  type StateconfMemory,
} from './transform.js';

/** The stateconf_* options of the config (the template's `opts`), over Salt's defaults. */
function configured(env: RenderEnv): { endMarker: RegExp; startSid: string; goalSid: string } {
  const opts = (typeof env.context.opts === 'object' && env.context.opts !== null ? env.context.opts : {}) as Record<string, unknown>;
  const str = (key: string, dflt: string): string => (typeof opts[key] === 'string' && opts[key] !== '' ? (opts[key] as string) : dflt);
  const marker = str('stateconf_end_marker', '#\\s*-+\\s*end of state config\\s*-+');
  let endMarker: RegExp;
  try {
    endMarker = new RegExp(marker);
  } catch (err) {
    throw new BrineError('RENDER_FAILED', `${env.source}: stateconf: stateconf_end_marker '${marker}' is not a valid regular expression`, { cause: err, details: { file: env.source } });
  }
  return { endMarker, startSid: str('stateconf_start_state', '.start'), goalSid: str('stateconf_goal_state', '.goal') };
}

export interface StateconfOptions {
  noGoal: boolean;
  implicitRequire: boolean;
  startState: boolean;
  /** `-p`: the input is already high data (stateconf last in a pipeline). */
  highInput: boolean;
  /** The data and template renderers with their own options (`yaml . jinja` by default). */
  data: { name: string; argline: string };
  template: { name: string; argline: string };
}

const USAGE = 'Usage: #!stateconf [-GoSp] [<data_renderer> [options] . <template_renderer> [options]]';

/** Parses the stateconf renderer's argument line as Salt does (getopt `Gosp`, then a ` . ` split). */
export function parseStateconfArgs(argline: string, source: string): StateconfOptions {
  const words = argline.split(/\s+/).filter((w) => w !== '');
  const flags = new Set<string>();
  let i = 0;
  // getopt: option letters may be grouped (`-Go`); the first non-option word ends the options
  for (; i < words.length && words[i]!.startsWith('-') && words[i] !== '-'; i++) {
    if (words[i] === '--') {
      i++;
      break;
    }
    for (const letter of words[i]!.slice(1)) {
      if (!'Gosp'.includes(letter)) throw new BrineError('RENDER_FAILED', `${source}: stateconf: option -${letter} not recognized. ${USAGE}`, { details: { file: source } });
      flags.add(letter);
    }
  }
  const rest = i < words.length ? words.slice(i).join(' ') : 'yaml . jinja';
  // split on the first dot surrounded by spaces and not preceded by a backslash; `\.` is a dot
  const m = /\s+(?<!\\)\.\s+/.exec(rest);
  const parts = (m ? [rest.slice(0, m.index), rest.slice(m.index + m[0].length)] : [rest]).map((p) => p.trim().replace(/\\\./g, '.'));
  const split = (p: string): { name: string; argline: string } => {
    const sp = `${p} `.indexOf(' ');
    return { name: p.slice(0, sp), argline: p.slice(sp + 1).trim() };
  };
  const highInput = flags.has('p');
  if (parts.length < 2 && !highInput) throw new BrineError('RENDER_FAILED', `${source}: Invalid use of stateconf renderer! ${USAGE}`, { details: { file: source } });
  const data = split(parts[0]!);
  const template = split(parts[1] ?? 'jinja');
  if (!highInput) {
    if (data.name !== 'yaml') unsupported(source, data.name, 'data');
    if (template.name !== 'jinja') unsupported(source, template.name, 'template');
    if (template.argline !== '' && template.argline !== '-s') {
      throw new BrineError('RENDER_FAILED', `${source}: Unknown renderer option: ${template.argline}`, { details: { file: source } });
    }
  }
  return { noGoal: flags.has('G'), implicitRequire: flags.has('o'), startState: flags.has('s'), highInput, data, template };
}

function unsupported(source: string, name: string, kind: string): never {
  throw new BrineError('RENDERER_UNSUPPORTED', `${source}: the stateconf ${kind} renderer '${name}' is not supported: brine's stateconf renders with 'yaml . jinja'`, {
    details: { file: source, renderer: name },
  });
}

/** The two renderers stateconf drives, supplied by the pipeline (so this file does not depend on it). */
export interface StateconfStages {
  template(text: string, env: RenderEnv): string;
  data(text: string, env: RenderEnv): unknown;
}

function slsOf(env: RenderEnv): string {
  return typeof env.context.sls === 'string' ? env.context.sls : '';
}

/** Salt's process_high_data: the rewrites, in Salt's order, on a copy of the data. */
export function processHighData(input: unknown, env: RenderEnv, opts: StateconfOptions, mem: StateconfMemory, extract: boolean): High {
  // an empty file is {} (Salt's yaml renderer), which still gets its goal state
  if (input === null || input === undefined) input = {};
  if (typeof input !== 'object' || Array.isArray(input)) throw new BrineError('RENDER_FAILED', `${env.source}: stateconf: the SLS did not render to a mapping`, { details: { file: env.source } });
  const sls = slsOf(env);
  let data = structuredClone(input) as High;
  rewriteShorthand(data);
  rewriteIncludesExcludes(data, sls, env.saltenv, env.source);
  if (!extract && opts.implicitRequire) {
    const sid = firstNamesDecl(data);
    if (sid !== undefined) {
      throw new BrineError(
        'RENDER_FAILED',
        `${env.source}: 'names' declaration(found in state id: ${sid}) is not supported with implicitly ordered states! You should generate the states in a template for-loop instead.`,
        { details: { file: env.source } },
      );
    }
    addImplicitRequires(data, mem, env.source);
  }
  const conf = configured(env);
  if (opts.startState) addStartState(data, sls, env.source, conf.startSid);
  if (!extract && !opts.noGoal) addGoalState(data, env.source, conf.goalSid);
  data = renameStateIds(data, sls, env.source);
  // extracted in both passes, so that an including file's `extend` of a stateconf.set works
  extractStateConfs(data, mem);
  return data;
}

/** The template context stateconf adds: `sls_dir` and every `stateconf.set` collected so far, this SLS's without its `<sls>::` prefix. */
function templateContext(env: RenderEnv, mem: StateconfMemory, withConf: boolean): Record<string, unknown> {
  const sls = slsOf(env);
  const slsDir = sls.includes('.') ? sls.slice(0, sls.lastIndexOf('.')).replace(/\./g, '/') : sls;
  const ctx: Record<string, unknown> = { sls_dir: slsDir === '' ? '.' : slsDir };
  if (!withConf) return ctx;
  const prefix = `${sls}::`;
  for (const [k, v] of mem.conf) ctx[k.startsWith(prefix) ? k.slice(prefix.length) : k] = v;
  return ctx;
}

/** Renders `text` (or, with `-p`, high data) through stateconf. */
export function renderStateconf(input: unknown, env: RenderEnv, opts: StateconfOptions, stages: StateconfStages): High {
  const mem = env.stateconf ?? newStateconfMemory();
  if (opts.highInput) return processHighData(input, env, opts, mem, false);
  const text = String(input);
  const pass = (part: string, withConf: boolean, extract: boolean): High => {
    const penv: RenderEnv = { ...env, context: { ...env.context, ...templateContext(env, mem, withConf) } };
    const rendered = stages.template(part, penv);
    return processHighData(stages.data(rendered, penv), penv, opts, mem, extract);
  };
  const marker = configured(env).endMarker.exec(text);
  if (marker) pass(text.slice(0, marker.index), false, true);
  return pass(text, true, false);
}
