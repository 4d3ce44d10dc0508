// Stage "render" for SLS files: the template variables Salt gives an SLS (sls, slspath,
// tpldir, tplfile, ... as salt.utils.templates.generate_sls_context computes them), and the
// loader the high-data stage reads SLS files through.

import type { ExecContext } from '../modules/index.js';
import { newStateconfMemory, renderSls, treeRendererDirs, type RenderEnv } from '../render/index.js';
import { BrineError } from '../util/errors.js';
import type { SlsLoader } from './compiler/assemble-high.js';
import { findSls, type SlsFiles } from './sls-source.js';

/** Salt's SLS variables for the file at `path` (relative to the root) holding SLS `sls`. */
export function slsVariables(sls: string, path: string): Record<string, string> {
  const slspath = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  return {
    sls,
    slspath,
    slsdotpath: slspath.replace(/\//g, '.'),
    slscolonpath: slspath.replace(/\//g, ':'),
    sls_path: slspath.replace(/\//g, '_'),
    tpldir: slspath === '' ? '.' : slspath,
    tpldot: slspath.replace(/\//g, '.'),
    tplfile: path,
    tplpath: path,
  };
}

/** What a render reaches on the host: the ExecContext's data and its synchronous calls. */
export function renderHooks(exec: ExecContext, source: string, saltenv: string): Pick<RenderEnv, 'callFunction' | 'loadFile' | 'log'> {
  return {
    ...(exec.log ? { log: exec.log } : {}),
    callFunction: (fun, arg, kwarg) => {
      if (!exec.syncHost) throw new BrineError('EXEC_FAILED', `${source}: salt['${fun}'] cannot be called here (no host thread for synchronous calls)`);
      const r = exec.syncHost.call(fun, arg, kwarg);
      // a function that returned (cmd.run of a command that exited non-zero, a mapping with
      // result False) gives its value, as Salt's __salt__ call does; only an error raises
      if (r.error) throw new BrineError(r.error.code ?? 'EXEC_FAILED', r.error.message ?? String(r.return));
      return r.return;
    },
    loadFile: (name) => exec.syncHost?.readFile(`salt://${name}`, saltenv),
  };
}

/** The SLS loader of a run: find the file, render it with grains, pillar, opts and the SLS variables. */
export function slsLoader(files: SlsFiles, exec: ExecContext): SlsLoader {
  // one run's #!stateconf files share their stateconf.set arguments (an includer's extend reaches the included file)
  const stateconf = newStateconfMemory();
  // a tree's own renderers (#!objects): synced to <extension_modules>/renderers, or in render_dirs
  const rendererDirs = treeRendererDirs(exec.config);
  return {
    load: async (sls, env) => {
      const found = await findSls(files, sls, env);
      if (!found) return undefined;
      const source = `salt://${found.path}`;
      const data = await renderSls(found.text, {
        source,
        saltenv: env,
        context: { grains: exec.grains(), pillar: exec.pillar?.() ?? {}, opts: exec.config, saltenv: env, ...slsVariables(sls, found.path) },
        ...renderHooks(exec, source, env),
        stateconf,
        treeRendererDirs: rendererDirs,
      });
      return { data, source };
    },
  };
}
