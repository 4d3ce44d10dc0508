// Salt's Python renderers, `#!py`, `#!pyobjects` and `#!pydsl`: the SLS file's code runs in a python3
// process (python-process.ts) with the names Salt gives it (`__salt__`, `__grains__`,
// `__pillar__`, `__opts__`, `__sls__`, `__env__`/`saltenv`, `salt`, `grains`, `pillar`...), and
// what it returns (or, for pyobjects, the states it makes) is the file's data. Its `__salt__`
// calls come back here and reach exactly what a Jinja template's `salt[...]` reaches: the
// functions the render answers itself, then the caller's callFunction (which refuses everything
// else while rendering pillar on the master).

import { BrineError } from '../../util/errors.js';
import { locate } from '../jinja/engine.js';
import { saltCaller } from '../jinja/salt-layer.js';
import type { RenderEnv } from '../types.js';
import { runPython, type PythonRequest } from './python-process.js';

/** Salt sets no limit; brine ends a render whose Python runs longer than this (RENDER_TIMEOUT). */
export const DEFAULT_PYTHON_TIMEOUT_MS = 120_000;

export type PythonRenderer = PythonRequest['renderer'];

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** A `template: py` file template rather than an SLS file: its variables, and run() gives text. */
export interface PythonTemplate {
  variables: Record<string, unknown>;
}

/** Renders `body` (the file's text, shebang line blanked) with a Python renderer to data. */
export async function renderPython(renderer: PythonRenderer, body: string, env: RenderEnv, template?: PythonTemplate): Promise<unknown> {
  const ctx = env.context;
  const grains = record(ctx.grains);
  const pillar = record(ctx.pillar);
  const opts = record(ctx.opts);
  const call = saltCaller({ grains, pillar, opts, call: (fun, args, kwargs) => env.callFunction(fun, args, kwargs), ...(env.log ? { log: env.log } : {}) });
  const request: PythonRequest = {
    renderer,
    text: body,
    source: env.source,
    path: typeof ctx.tplpath === 'string' ? ctx.tplpath : env.source,
    sls: typeof ctx.sls === 'string' ? ctx.sls : '',
    saltenv: env.saltenv,
    grains,
    pillar,
    opts,
    ...(template ? { variables: template.variables, textResult: true } : {}),
  };
  const outcome = await runPython(
    request,
    { call: (fun, args, kwargs) => call(fun, args, kwargs), load: (name) => env.loadFile(name) },
    { timeoutMs: env.python?.timeoutMs ?? DEFAULT_PYTHON_TIMEOUT_MS, ...(env.python?.interpreter ? { interpreter: env.python.interpreter } : {}) },
  );
  if (outcome.kind === 'done') return outcome.data ?? {};
  const what = outcome.code ? `${outcome.type}: ${outcome.code}: ${outcome.message}` : `${outcome.type}: ${outcome.message}`;
  const message = template ? `Python error in the 'py' template: ${what}` : `Python error in the '#!${renderer}' renderer: ${what}`;
  // line 0: raised outside the file's own code (its data could not be sent back)
  const located =
    outcome.line > 0
      ? locate('RENDER_FAILED', env.source, outcome.line, 0, message, body, '', outcome.cause)
      : new BrineError('RENDER_FAILED', `${env.source}: ${message}`, { details: { file: env.source } });
  // the whole traceback stays in the details (brine's log), the message names the file's own line
  throw new BrineError(located.code, located.message, { cause: outcome.cause, details: { ...located.details, traceback: outcome.traceback } });
}
