// The functions templates answer on their own thread (src/render/salt-functions: slsutil.*,
// defaults.merge/update/deepcopy, log.*, file.dirname/basename/join/normpath, grains.equals,
// grains.has_value) as execution functions too, for brine call, module.run and onlyif/unless
// `fun:` checks. One implementation: the registry binds Salt's parameter names and this calls
// the same code the template does.

import type { ExecContext, ModuleFunction, ParamSpec } from '../modules/index.js';
import { TEMPLATE_FUNCTIONS, traverse, type TemplateFunction, type TemplateHost } from '../render/index.js';
import { BrineError, errorMessage } from '../util/errors.js';

function hostOf(ctx: ExecContext): TemplateHost {
  return {
    grain: (key, dflt) => traverse(ctx.grains(), key, dflt),
    grains: () => ({ ...ctx.grains() }),
    opts: () => ({ ...ctx.config }),
    pillar: () => ({ ...(ctx.pillar?.() ?? {}) }),
    ...(ctx.log ? { log: ctx.log } : {}),
  };
}

function asModuleFunction(name: string, f: TemplateFunction): ModuleFunction {
  // a Python default of None must stay None: the registry applies `default` to a null argument
  const params: ParamSpec[] = f.params.map((p) =>
    Object.hasOwn(p, 'default') ? { name: p.name, type: 'any', ...(p.default !== null ? { default: p.default } : {}) } : { name: p.name, type: 'any', required: true },
  );
  return {
    name,
    doc: f.doc,
    params,
    ...(f.varargs ? { varargs: true } : {}),
    ...(f.kwargs ? { kwargs: true } : {}),
    run: (ctx, args) => {
      const a: Record<string, unknown> = {};
      for (const p of f.params) a[p.name] = args.named[p.name] ?? (Object.hasOwn(p, 'default') ? p.default : null);
      try {
        return f.run(hostOf(ctx), a, args.rest, args.extra);
      } catch (err) {
        throw new BrineError('EXEC_FAILED', `${name}: ${errorMessage(err)}`);
      }
    },
  };
}

/** The template functions as registry entries, each with Salt's parameter names. */
export function templateModuleFunctions(): ModuleFunction[] {
  return [...TEMPLATE_FUNCTIONS].map(([name, f]) => asModuleFunction(name, f));
}
