// Renders one reactor SLS for one event, as Salt's Reactor.render_reaction: the file's pipeline
// (shebang, else jinja|yaml) with `tag` and `data` of the event, plus the daemon's `opts`,
// `grains` and `pillar`, and `salt` (Salt's MasterMinion functions on the master, the minion's own
// on a minion). Errors are the renderer's RENDER_FAILED naming the file, line and column.

import { BrineError } from '../util/errors.js';
import { type FunctionCaller, renderWithCalls } from './function-replay.js';

export interface RenderContext {
  /** The daemon's options (Jinja `opts`). */
  opts: Record<string, unknown>;
  /** The daemon's grains (Jinja `grains`): the minion's current ones; empty on the master. */
  grains: Record<string, unknown> | (() => Record<string, unknown>);
  /** Jinja `pillar`: the minion's pillar on a minion; absent = `{}` (the master's). */
  pillar?: () => Record<string, unknown>;
  /** `{% include %}` / `{% import %}` from file_roots' base environment. */
  loadFile(name: string): string | undefined;
  /** `salt['mod.fun'](...)`; absent = refused with RENDER_FAILED. */
  call?: FunctionCaller;
}

const NO_FUNCTIONS =
  "this reactor cannot call execution functions (salt['...']): render with tag, data, opts and grains, and put the work in the reaction (local.<fun> on a minion, runner.<fun> on the master)";

export async function renderReaction(text: string, source: string, tag: string, data: Readonly<Record<string, unknown>>, ctx: RenderContext): Promise<unknown> {
  // loaded on the first reaction: a minion with no reactor (most) never loads the renderer for it
  const { renderSls } = await import('../render/index.js');
  const render = (callFunction: (fun: string, arg: unknown[], kwarg: Record<string, unknown>) => unknown) =>
    renderSls(text, {
      source,
      saltenv: 'base',
      context: { tag, data, opts: ctx.opts, grains: typeof ctx.grains === 'function' ? ctx.grains() : ctx.grains, pillar: ctx.pillar?.() ?? {}, saltenv: 'base', sls: source },
      callFunction,
      loadFile: (name) => ctx.loadFile(name),
    });
  if (!ctx.call) {
    return render((fun) => {
      throw new BrineError('RENDER_FAILED', `${source}: salt['${fun.slice(0, 100)}']: ${NO_FUNCTIONS}`, { details: { file: source } });
    });
  }
  return renderWithCalls(render, ctx.call, source);
}
