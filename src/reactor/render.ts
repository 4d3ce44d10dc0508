// Renders one reactor SLS for one event, as Salt's Reactor.render_reaction: the file's pipeline
// (shebang, else jinja|yaml) with `tag` and `data` of the event, plus the master's `opts` and
// `grains`. Errors are the renderer's RENDER_FAILED naming the file, line and column.

import { renderSls } from '../render/index.js';
import { BrineError } from '../util/errors.js';

export interface RenderContext {
  /** The master's options (Jinja `opts`). */
  opts: Record<string, unknown>;
  /** The master's grains (Jinja `grains`); empty when the master has none cached. */
  grains: Record<string, unknown>;
  /** `{% include %}` / `{% import %}` from file_roots' base environment. */
  loadFile(name: string): string | undefined;
}

const NO_FUNCTIONS =
  "reactor SLS files on the brine master cannot call execution functions (salt['...']): render with tag, data, opts and grains, and put the work in the reaction (local.<fun> on a minion, runner.<fun> on the master)";

export async function renderReaction(text: string, source: string, tag: string, data: Readonly<Record<string, unknown>>, ctx: RenderContext): Promise<unknown> {
  return renderSls(text, {
    source,
    saltenv: 'base',
    context: { tag, data, opts: ctx.opts, grains: ctx.grains, pillar: {}, saltenv: 'base', sls: source },
    callFunction: (fun) => {
      throw new BrineError('RENDER_FAILED', `${source}: salt['${fun.slice(0, 100)}']: ${NO_FUNCTIONS}`, { details: { file: source } });
    },
    loadFile: (name) => ctx.loadFile(name),
  });
}
