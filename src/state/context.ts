// Builds the StateContext a state function runs with. The runtime uses it for every state; unit
// tests of state modules use it directly with a real execution-module registry.

import { createDefaultRegistry, type ExecContext, type ModuleRegistry } from '../modules/index.js';
import { renderTemplate } from '../render/index.js';
import { renderHooks } from './sls-render.js';
import type { LowRef, StateContext } from './types.js';

export interface StateContextOptions {
  test?: boolean;
  saltenv?: string;
  exec: ExecContext;
  low: LowRef;
  /** Shared by the states of one run (StateContext.runContext); a new one when not given. */
  runContext?: Map<string, unknown>;
  /** The execution functions `call` reaches; the built-in registry when not given. */
  registry?: ModuleRegistry;
}

export function createStateContext(opts: StateContextOptions): StateContext {
  const registry = opts.registry ?? createDefaultRegistry();
  const exec = opts.exec;
  const saltenv = opts.saltenv ?? 'base';
  return {
    test: opts.test ?? false,
    saltenv,
    exec,
    low: opts.low,
    runContext: opts.runContext ?? new Map(),
    call: (fun, arg = [], kwarg = {}) => registry.call(fun, arg, kwarg, exec),
    renderTemplate: (text, request) => {
      const tplpath = request.source.replace(/^salt:\/\//, '');
      const tpldir = tplpath.includes('/') ? tplpath.slice(0, tplpath.lastIndexOf('/')) : '.';
      return renderTemplate(text, request.engine, {
        source: request.source,
        saltenv,
        context: {
          grains: exec.grains(),
          pillar: exec.pillar?.() ?? {},
          opts: exec.config,
          saltenv,
          tplpath,
          tpldir,
          ...request.context,
        },
        ...renderHooks(exec, request.source, saltenv),
      });
    },
  };
}
