// The renderer pipeline: the first line's shebang picks the renderers (`jinja|yaml` when there is
// none, as in Salt), each stage feeds the next. Only the pipelines brine renders exactly are
// accepted: `#!yaml`, `#!jinja|yaml`, either followed by `|gpg` (src/render/gpg.ts, where the
// caller gives gpg options), Salt's `#!stateconf` (src/render/stateconf/) and, for templates that
// render text, `#!jinja`; Salt's Python renderers `#!py`, `#!pyobjects` and `#!pydsl` run the
// file with python3 (src/render/python/). Anything else (`#!mako|yaml`, a Python renderer inside
// a pipeline...) is refused with RENDERER_UNSUPPORTED. A name brine does not render itself may be
// a tree's own Python renderer (`#!objects`, `#!jinja|objects`: src/render/python/tree-renderers.ts),
// found in the directories the caller gives (RenderEnv.treeRendererDirs).

import { BrineError } from '../util/errors.js';
import { decryptData } from './gpg.js';
import { JinjaEngine, locate } from './jinja/engine.js';
import { recordKeyOrder } from './jinja/digit-key-order.js';
import { type PythonRenderer, renderPython, renderWithTreeRenderer, type StageValue } from './python/render.js';
import { findTreeRenderer, type TreeRenderer } from './python/tree-renderers.js';
import { parseStateconfArgs, renderStateconf, type StateconfOptions } from './stateconf/render.js';
import type { RenderEnv } from './types.js';
import { loadYaml, YamlLoadError } from './yaml-load.js';

let engine: JinjaEngine | undefined;

/** The process's Jinja engine (one nunjucks Environment, compiled templates cached by name and text). */
function jinja(): JinjaEngine {
  engine ??= new JinjaEngine();
  return engine;
}

type Stage = 'jinja' | 'yaml' | 'gpg';

const PIPELINES: Record<string, Stage[]> = {
  yaml: ['yaml'],
  jinja: ['jinja'],
  'jinja|yaml': ['jinja', 'yaml'],
  'yaml|gpg': ['yaml', 'gpg'],
  'jinja|yaml|gpg': ['jinja', 'yaml', 'gpg'],
};

/** Salt's Python renderers brine runs with python3 (src/render/python/). */
const PYTHON_RENDERERS = new Set<string>(['py', 'pyobjects', 'pydsl']);

/** A parsed shebang: the plain stages, and stateconf's options when the pipeline ends in it. */
interface Pipeline {
  stages: Stage[];
  stateconf?: StateconfOptions;
  python?: PythonRenderer;
  /** A pipeline with a tree's own renderer in it: each part in order (jinja, yaml or the tree's). */
  tree?: TreePart[];
}

interface TreePart {
  name: string;
  argline: string;
  renderer?: TreeRenderer;
}

/** Names brine renders itself; any other name may be a tree's own renderer. */
const BUILT_IN = new Set<string>(['jinja', 'yaml', 'gpg', 'stateconf', ...PYTHON_RENDERERS]);

/** `name argline` parts of a shebang split on `|` (Salt's check_render_pipe_str). */
function shebangParts(line: string): Array<{ name: string; argline: string }> {
  return line.split('|').map((raw) => {
    const part = raw.trim();
    const sp = `${part} `.indexOf(' ');
    return { name: part.slice(0, sp), argline: part.slice(sp + 1).trim() };
  });
}

/** A pipeline naming a tree's own renderer: jinja and yaml may come before or after it. */
function treePipeline(line: string, parts: Array<{ name: string; argline: string }>, source: string, dirs: readonly string[] | undefined): TreePart[] | undefined {
  const found = parts.map((p) => ({ ...p, ...(BUILT_IN.has(p.name) ? {} : { renderer: findTreeRenderer(dirs, p.name) }) }));
  if (!found.some((p) => p.renderer)) return undefined;
  const bad = found.find((p) => !p.renderer && !((p.name === 'jinja' || p.name === 'yaml') && p.argline === ''));
  if (bad) {
    throw new BrineError(
      'RENDERER_UNSUPPORTED',
      `${source}: the renderer pipeline '#!${line}' is not supported: with a tree's own renderer brine runs 'jinja' and 'yaml' (without options) around it, not '${bad.name}${bad.argline ? ` ${bad.argline}` : ''}'`,
      { details: { file: source, renderer: line } },
    );
  }
  return found;
}

/** Where a name that is no renderer of brine's was looked for, for the error message. */
function unknownRendererHint(parts: Array<{ name: string }>, dirs: readonly string[] | undefined): string {
  const unknown = parts.find((p) => !BUILT_IN.has(p.name));
  if (!unknown) return '';
  const where = dirs && dirs.length > 0 ? dirs.join(', ') : 'no renderer directory (extension_modules, render_dirs)';
  return `; '${unknown.name}' is no renderer of brine's and there is no ${unknown.name}.py in ${where} (a tree's own renderer in <file_root>/_renderers/ is copied there by saltutil.sync_renderers or sync_all)`;
}

function parseShebang(line: string, source: string, dirs?: readonly string[]): Pipeline {
  const parts = shebangParts(line);
  const tree = treePipeline(line, parts, source, dirs);
  if (tree) return { stages: [], tree };
  const first = parts[0]!;
  if (parts.length === 1 && first.argline === '' && PYTHON_RENDERERS.has(first.name)) return { stages: [], python: first.name as PythonRenderer };
  const python = parts.find((p) => PYTHON_RENDERERS.has(p.name));
  if (python) {
    const why = `'#!${python.name}' runs the whole file as Python: use it alone on the first line, as '#!${python.name}'`;
    throw new BrineError('RENDERER_UNSUPPORTED', `${source}: the renderer pipeline '#!${line}' is not supported: ${why}`, { details: { file: source, renderer: line } });
  }
  const last = parts.length - 1;
  const sc = parts.findIndex((p) => p.name === 'stateconf');
  if (sc >= 0) {
    const before = parts
      .slice(0, sc)
      .map((p) => p.name)
      .join('|');
    // stateconf first (it renders the text itself), after jinja (it gets text), or last with -p after data
    const stages = before === '' ? [] : PIPELINES[before];
    const opts = parseStateconfArgs(parts[sc]!.argline, source);
    const fits = sc === last && stages !== undefined && (opts.highInput ? stages.includes('yaml') : !stages.includes('yaml'));
    if (fits) return { stages, stateconf: opts };
  }
  const stages = parts.some((p) => p.argline !== '') ? undefined : PIPELINES[parts.map((p) => p.name).join('|')];
  if (!stages) {
    throw new BrineError(
      'RENDERER_UNSUPPORTED',
      `${source}: the renderer pipeline '#!${line}' is not supported: use no shebang (jinja|yaml), '#!yaml', '#!jinja|yaml', either with '|gpg' after it, '#!jinja' or '#!stateconf [-Gosp] [yaml . jinja]'${unknownRendererHint(parts, dirs)}`,
      { details: { file: source, renderer: line } },
    );
  }
  return { stages };
}

/** The pipeline named by the text's shebang (first line `#!...`), and the text without that line. */
function pipelineOf(text: string, env: RenderEnv): Pipeline & { body: string; line: string } {
  const { source, renderer, treeRendererDirs: dirs } = env;
  if (!text.startsWith('#!')) return renderer === undefined ? { stages: ['jinja', 'yaml'], body: text, line: 'jinja|yaml' } : { ...parseShebang(renderer, source, dirs), body: text, line: renderer };
  const nl = text.indexOf('\n');
  const line = (nl < 0 ? text : text.slice(0, nl)).slice(2).trim();
  // the shebang line is blanked, not removed, so that line numbers stay those of the file
  return { ...parseShebang(line, source, dirs), body: nl < 0 ? '' : `\n${text.slice(nl + 1)}`, line };
}

/**
 * A pipeline with a tree's own renderer, stage by stage as Salt's compile_template: the tree's
 * renderer first gets the whole file (shebang included, as Salt reads it), jinja and yaml the text
 * with the shebang line blanked; each later stage gets what the one before returned.
 */
async function renderTreePipeline(parts: readonly TreePart[], text: string, body: string, line: string, env: RenderEnv): Promise<unknown> {
  let value: StageValue | undefined;
  for (const part of parts) {
    if (part.renderer) {
      value = await renderWithTreeRenderer(part.renderer, part.argline, value ?? { text }, env);
      continue;
    }
    const input = value ?? { text: body };
    if (!('text' in input)) {
      throw new BrineError(
        'RENDER_FAILED',
        `${env.source}: in '#!${line}', '${part.name}' renders text, and the stage before it returned data: put '${part.name}' before the renderer that returns data`,
        {
          details: { file: env.source, renderer: line },
        },
      );
    }
    value = part.name === 'jinja' ? { text: jinja().render(input.text, env) } : { data: parseYaml(input.text, env, value !== undefined) ?? {} };
  }
  if (value && 'data' in value) return value.data ?? {};
  throw new BrineError(
    'RENDER_FAILED',
    `${env.source}: the renderer pipeline '#!${line}' ends in text, not SLS data: end it with a renderer that returns data (yaml, or the tree's renderer returning a mapping)`,
    {
      details: { file: env.source, renderer: line },
    },
  );
}

function parseYaml(text: string, env: RenderEnv, afterJinja: boolean): unknown {
  try {
    return loadYaml(text, undefined, { stringIds: env.pillar !== true, keyOrder: recordKeyOrder });
  } catch (err) {
    if (!(err instanceof YamlLoadError)) throw err;
    const { line, col, message } = err.problem;
    const label = afterJinja ? 'rendered line ' : 'line ';
    const what = afterJinja ? `YAML error in the text rendered by Jinja: ${message}` : `YAML error: ${message}`;
    throw locate('RENDER_FAILED', env.source, line, col, what, text, label, err);
  }
}

/** Renders an SLS text through its pipeline (first-line shebang, else `jinja|yaml`) to data. */
export async function renderSls(text: string, env: RenderEnv): Promise<unknown> {
  const { stages, stateconf, python, tree, body, line } = pipelineOf(text, env);
  if (tree) return renderTreePipeline(tree, text, body, line, env);
  if (python) return renderPython(python, body, env);
  let current = body;
  if (stages.includes('jinja')) current = jinja().render(body, env);
  if (stateconf) {
    const input = stages.includes('yaml') ? (parseYaml(current, env, stages.includes('jinja')) ?? {}) : current;
    return renderStateconf(input, env, stateconf, { template: (t, e) => jinja().render(t, e), data: (t, e) => parseYaml(t, e, true) });
  }
  if (!stages.includes('yaml')) {
    throw new BrineError('RENDERER_UNSUPPORTED', `${env.source}: '#!jinja' alone renders text, not SLS data: use '#!jinja|yaml'`, { details: { file: env.source } });
  }
  const data = parseYaml(current, env, stages.includes('jinja')) ?? {};
  if (!stages.includes('gpg')) return data;
  if (!env.gpg) {
    throw new BrineError(
      'RENDERER_UNSUPPORTED',
      `${env.source}: the gpg renderer decrypts pillar only (on the master, or a masterless minion's own pillar_roots); state SLS files and templates cannot use '|gpg': read the secret from pillar instead`,
      { details: { file: env.source } },
    );
  }
  return decryptData(data, env.source, env.gpg);
}

/**
 * Variables a `py` template module gets besides Salt's own names (grains, pillar, opts: salt_globals):
 * Salt's templates.py sets file.managed's name, source, user, group, mode and `context` on it; here
 * each template variable is also set by name (a superset: context keys are module attributes too).
 */
function pyTemplateVariables(context: Record<string, unknown>): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(context)) if (!['grains', 'pillar', 'opts', 'salt'].includes(k) && typeof v !== 'function') vars[k] = v;
  return { ...vars, context: { ...vars } };
}

/** Renders a template text with one engine (`jinja`, or `py`: a Python file's run() returns the text) to text. */
export async function renderTemplate(text: string, engineName: string, env: RenderEnv): Promise<string> {
  if (engineName === 'py') return String(await renderPython('py', text, env, { variables: pyTemplateVariables(env.context) }));
  if (engineName !== 'jinja') {
    throw new BrineError('RENDERER_UNSUPPORTED', `${env.source}: the template engine '${engineName}' is not supported: use template: jinja or py`, { details: { file: env.source } });
  }
  return jinja().render(text, env);
}
