// Salt's Python renderers, `#!py`, `#!pyobjects` and `#!pydsl`, and a tree's own Python renderers
// (`#!objects` from `_renderers/objects.py`): the code runs in a python3 process
// (python-process.ts) with the names Salt gives it (`__salt__`, `__grains__`, `__pillar__`,
// `__opts__`, `__sls__`, `__env__`/`saltenv`, `salt`, `grains`, `pillar`...), and what it returns
// (or, for pyobjects, the states it makes) is the file's data. Its `__salt__` calls come back here
// and reach exactly what a Jinja template's `salt[...]` reaches: the functions the render answers
// itself, then the caller's callFunction (which refuses everything else while rendering pillar on
// the master).

import { BrineError } from '../../util/errors.js';
import { locate } from '../jinja/engine.js';
import { saltCaller } from '../jinja/salt-layer.js';
import type { RenderEnv } from '../types.js';
import { type PythonOutcome, type PythonRequest, runPython } from './python-process.js';
import type { TreeRenderer } from './tree-renderers.js';

/** Salt sets no limit; brine ends a render whose Python runs longer than this (RENDER_TIMEOUT). */
export const DEFAULT_PYTHON_TIMEOUT_MS = 120_000;

export type PythonRenderer = 'py' | 'pyobjects' | 'pydsl';

type PythonError = Extract<PythonOutcome, { kind: 'error' }>;

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** A `template: py` file template rather than an SLS file: its variables, and run() gives text. */
export interface PythonTemplate {
  variables: Record<string, unknown>;
}

/** Runs one request with the render's grains, pillar and opts, answering its calls through the env. */
async function runRequest(renderer: string, text: string, env: RenderEnv, extra: Partial<PythonRequest>): Promise<PythonOutcome> {
  const ctx = env.context;
  const grains = record(ctx.grains);
  const pillar = record(ctx.pillar);
  const opts = record(ctx.opts);
  const call = saltCaller({ grains, pillar, opts, call: (fun, args, kwargs) => env.callFunction(fun, args, kwargs), ...(env.log ? { log: env.log } : {}) });
  const request: PythonRequest = {
    renderer,
    text,
    source: env.source,
    path: typeof ctx.tplpath === 'string' ? ctx.tplpath : env.source,
    sls: typeof ctx.sls === 'string' ? ctx.sls : '',
    saltenv: env.saltenv,
    grains,
    pillar,
    opts,
    ...extra,
  };
  return runPython(
    request,
    { call: (fun, args, kwargs) => call(fun, args, kwargs), load: (name) => env.loadFile(name) },
    { timeoutMs: env.python?.timeoutMs ?? DEFAULT_PYTHON_TIMEOUT_MS, ...(env.python?.interpreter ? { interpreter: env.python.interpreter } : {}) },
  );
}

/** The last lines of a Python traceback: where it failed and why, without the whole stack. */
function tracebackTail(traceback: string, lines = 6): string {
  return traceback.trimEnd().split('\n').slice(-lines).join('\n');
}

/** A `salt.*` import the shim lacks: the same coded error whichever Python renderer ran the code. */
function missingModuleError(outcome: PythonError, env: RenderEnv): BrineError | undefined {
  if (!outcome.missingModule) return undefined;
  // code a renderer exec()s from a string has no file name: it is the SLS's (or a file it imported)
  const where = outcome.importer && !outcome.importer.startsWith('<string>') ? outcome.importer : `code run for ${env.source} (${outcome.importer ?? 'an import'})`;
  return new BrineError(
    'RENDER_SALT_MODULE_MISSING',
    `${env.source}: ${where} imports '${outcome.missingModule}', a Salt module brine's stand-in Salt package does not provide (it has salt.utils.pyobjects, salt.fileclient, salt.utils.dictupdate, salt.utils.files, salt.exceptions, salt.utils.yaml, salt.utils.json, salt.utils.odict, salt.loader): call the function through __salt__ instead, or see docs/templates.md`,
    { details: { file: env.source, module: outcome.missingModule, importer: outcome.importer, traceback: outcome.traceback } },
  );
}

/** Renders `body` (the file's text, shebang line blanked) with a Python renderer to data. */
export async function renderPython(renderer: PythonRenderer, body: string, env: RenderEnv, template?: PythonTemplate): Promise<unknown> {
  const outcome = await runRequest(renderer, body, env, template ? { variables: template.variables, textResult: true } : {});
  if (outcome.kind === 'done') return outcome.data ?? {};
  const missing = missingModuleError(outcome, env);
  if (missing) throw missing;
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

/** What one stage of a render pipeline hands the next: text, or data. */
export type StageValue = { text: string } | { data: unknown };

/**
 * Runs a tree's own renderer on `input` (the file's text as Salt reads it, or what the stage before
 * produced), as Salt's compile_template calls a render module: `render(StringIO | data, saltenv, sls, **kw)`.
 */
export async function renderWithTreeRenderer(renderer: TreeRenderer, argline: string, input: StageValue, env: RenderEnv): Promise<StageValue> {
  const text = 'text' in input ? input.text : '';
  const outcome = await runRequest(renderer.name, text, env, { custom: { name: renderer.name, module: renderer.file, argline, input } });
  if (outcome.kind === 'done') return outcome.text ? { text: typeof outcome.data === 'string' ? outcome.data : '' } : { data: outcome.data };
  const missing = missingModuleError(outcome, env);
  if (missing) throw missing;
  const what = outcome.code ? `${outcome.type}: ${outcome.code}: ${outcome.message}` : `${outcome.type}: ${outcome.message}`;
  const how = outcome.phase === 'import' ? 'could not be loaded' : 'failed while rendering it';
  throw new BrineError(
    'RENDERER_MODULE_FAILED',
    `${env.source}: the tree's renderer '${renderer.name}' (${renderer.file}) ${how}: ${what}\n${tracebackTail(outcome.treeTraceback ?? outcome.traceback)}`,
    { cause: outcome.cause, details: { file: env.source, renderer: renderer.name, module: renderer.file, phase: outcome.phase, traceback: outcome.traceback } },
  );
}
