// The renderer pipeline: the first line's shebang picks the renderers (`jinja|yaml` when there is
// none, as in Salt), each stage feeds the next. Only the pipelines brine renders exactly are
// accepted: `#!yaml`, `#!jinja|yaml` and, for templates that render text, `#!jinja`. Anything else
// (`#!py`, `#!yaml|gpg`, `#!mako|yaml`...) is refused with RENDERER_UNSUPPORTED naming the file.

import { BrineError } from '../util/errors.js';
import { JinjaEngine, locate } from './jinja/engine.js';
import type { RenderEnv } from './types.js';
import { loadYaml, YamlLoadError } from './yaml-load.js';

let engine: JinjaEngine | undefined;

/** The process's Jinja engine (one nunjucks Environment, compiled templates cached by name and text). */
function jinja(): JinjaEngine {
  engine ??= new JinjaEngine();
  return engine;
}

type Stage = 'jinja' | 'yaml';

const PIPELINES: Record<string, Stage[]> = {
  yaml: ['yaml'],
  jinja: ['jinja'],
  'jinja|yaml': ['jinja', 'yaml'],
};

/** The stages named by the text's shebang (first line `#!...`), and the text without that line. */
export function pipelineOf(text: string, source: string): { stages: Stage[]; body: string } {
  if (!text.startsWith('#!')) return { stages: ['jinja', 'yaml'], body: text };
  const nl = text.indexOf('\n');
  const line = (nl < 0 ? text : text.slice(0, nl)).slice(2).trim();
  const spec = line.replace(/\s+/g, '');
  const stages = PIPELINES[spec];
  if (!stages) {
    throw new BrineError('RENDERER_UNSUPPORTED', `${source}: the renderer pipeline '#!${line}' is not supported: use no shebang (jinja|yaml), '#!yaml', '#!jinja|yaml' or '#!jinja'`, {
      details: { file: source, renderer: line },
    });
  }
  // the shebang line is blanked, not removed, so that line numbers stay those of the file
  return { stages, body: nl < 0 ? '' : `\n${text.slice(nl + 1)}` };
}

function parseYaml(text: string, env: RenderEnv, afterJinja: boolean): unknown {
  try {
    return loadYaml(text, undefined, { stringIds: env.pillar !== true });
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
  const { stages, body } = pipelineOf(text, env.source);
  let current = body;
  if (stages.includes('jinja')) current = jinja().render(body, env);
  if (!stages.includes('yaml')) {
    throw new BrineError('RENDERER_UNSUPPORTED', `${env.source}: '#!jinja' alone renders text, not SLS data: use '#!jinja|yaml'`, { details: { file: env.source } });
  }
  const data = parseYaml(current, env, stages.includes('jinja'));
  return data ?? {};
}

/** Renders a template text with one engine (`jinja`) to text. */
export async function renderTemplate(text: string, engineName: string, env: RenderEnv): Promise<string> {
  if (engineName !== 'jinja') {
    throw new BrineError('RENDERER_UNSUPPORTED', `${env.source}: the template engine '${engineName}' is not supported: use template: jinja`, { details: { file: env.source } });
  }
  return jinja().render(text, env);
}
