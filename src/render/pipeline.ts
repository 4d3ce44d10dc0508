// PLACEHOLDER until the Jinja engine lands: `#!yaml` only. Replaced by the render work (issue 9).

import { parse } from 'yaml';
import { BrineError } from '../util/errors.js';
import type { RenderEnv } from './types.js';

/** Renders an SLS text through its pipeline (first-line shebang, else `jinja|yaml`) to data. */
export async function renderSls(text: string, env: RenderEnv): Promise<unknown> {
  const first = text.split('\n', 1)[0] ?? '';
  if (first.trim() === '#!yaml' || !/{[%{#]/.test(text)) return parse(text) ?? {};
  throw new BrineError('RENDERER_UNSUPPORTED', `${env.source}: jinja is not rendered yet`);
}

/** Renders a template text with one engine (`jinja`) to text. */
export async function renderTemplate(text: string, engine: string, env: RenderEnv): Promise<string> {
  if (!/{[%{#]/.test(text)) return text;
  throw new BrineError('RENDERER_UNSUPPORTED', `${env.source}: ${engine} is not rendered yet`);
}
