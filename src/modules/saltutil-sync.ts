// saltutil.sync_grains / sync_modules / sync_states / sync_renderers / sync_all and
// refresh_modules: bring the custom grains, modules and states of the master's file_roots
// (`_grains/`, `_modules/`, `_states/`) and its renderers (`_renderers/*.py`) to this minion and
// load them (renderers are read at each render). Inline, so the reload reaches the minion itself.

import path from 'node:path';
import { BrineError } from '../util/errors.js';
import { defineFunction, defineParams } from './define-function.js';
import { EXTMOD_KINDS, nameList, syncEnvs, syncExtmods, type ExtmodFilter, type ExtmodKind } from './extmods-sync.js';
import type { ExecContext, ModuleFunction } from './types.js';

export type ExtmodsReload = NonNullable<ExecContext['reloadExtmods']>;

const PARAMS = defineParams([
  { name: 'saltenv', type: 'any', doc: "environments to sync from: 'base', 'base,dev' or a list (default base)" },
  { name: 'refresh', type: 'bool', default: true, doc: 'load what was synced now (false: at the next refresh or restart)' },
  { name: 'extmod_whitelist', type: 'any', doc: 'only these module names (comma list; sync_all: a mapping of kind to names)' },
  { name: 'extmod_blacklist', type: 'any', doc: 'never these module names (comma list; sync_all: a mapping of kind to names)' },
]);

interface SyncArgs {
  saltenv?: unknown;
  refresh: boolean;
  extmod_whitelist?: unknown;
  extmod_blacklist?: unknown;
}

/** A per-kind filter: a comma list for one kind, or (sync_all) a mapping of kind -> names. */
function filterFor(kind: ExtmodKind, a: SyncArgs, perKind: boolean): ExtmodFilter {
  const pick = (v: unknown, what: string): string[] | undefined => {
    if (perKind && typeof v === 'object' && v !== null && !Array.isArray(v)) return nameList((v as Record<string, unknown>)[kind], `${what}.${kind}`);
    if (perKind && v !== undefined && v !== null) throw new BrineError('BAD_ARGUMENTS', `saltutil.sync_all: ${what} must be a mapping of kind to names, e.g. {modules: [mymod]}`);
    return nameList(v, what);
  };
  const whitelist = pick(a.extmod_whitelist, 'extmod_whitelist');
  const blacklist = pick(a.extmod_blacklist, 'extmod_blacklist');
  return { ...(whitelist ? { whitelist } : {}), ...(blacklist ? { blacklist } : {}) };
}

/** A loaded file by its name (the extmods directory is implied); a master path as the master lists it. */
function problemLine(p: { file: string; reason: string }): string {
  return `${path.isAbsolute(p.file) ? path.basename(p.file) : p.file}: ${p.reason}`;
}

function problemText(problems: readonly { file: string; reason: string }[]): string {
  return problems.map(problemLine).join('; ');
}

/** Syncs each kind, then (refresh) reloads them once; returns Salt's `{kind: [kind.name, ...]}`. */
async function syncKinds(fun: string, ctx: ExecContext, kinds: readonly ExtmodKind[], a: SyncArgs): Promise<Record<string, string[]>> {
  const files = ctx.files;
  if (!files) throw new BrineError('FILESERVER_UNAVAILABLE', `${fun} needs the salt:// file server: run it through the minion daemon connected to a master, or set file_client: local with file_roots`);
  const cachedir = ctx.config.cachedir;
  if (typeof cachedir !== 'string' || cachedir === '') throw new BrineError('EXEC_FAILED', `${fun}: this minion has no cachedir to keep custom modules in; set cachedir`);
  const saltenvs = syncEnvs(a.saltenv);
  const perKind = kinds.length > 1;
  const out: Record<string, string[]> = {};
  const problems: { file: string; reason: string }[] = [];
  for (const kind of kinds) {
    const outcome = await syncExtmods({ files, cachedir, kind, saltenvs, filter: filterFor(kind, a, perKind), clean: ctx.config.clean_dynamic_modules !== false });
    out[kind] = outcome.changed;
    problems.push(...outcome.ignored);
  }
  // a renderer is loaded by each render that names it: nothing to reload
  const loaded = kinds.filter((k): k is Exclude<ExtmodKind, 'renderers'> => k !== 'renderers');
  if (a.refresh && ctx.reloadExtmods && loaded.length > 0) problems.push(...(await ctx.reloadExtmods(loaded)));
  if (problems.length > 0) {
    // Salt's per-kind lists plus `errors`, one line per file, so every outputter shows which
    // file broke and why (a bare list could not say it); the coded error carries the same
    const ret = { ...out, errors: problems.map(problemLine) };
    throw new BrineError('MODULE_LOAD_FAILED', `${fun}: ${problems.length} custom module file(s) could not be used: ${problemText(problems)}`, { details: { return: ret } });
  }
  return out;
}

function syncOne(kind: ExtmodKind): ModuleFunction {
  return defineFunction({
    name: `saltutil.sync_${kind}`,
    doc:
      kind === 'renderers'
        ? "Sync the tree's own Python renderers from salt://_renderers to <cachedir>/extmods/renderers; returns the renderers that changed."
        : `Sync custom ${kind} from salt://_${kind} to this minion (and load them); returns the ${kind} that changed.`,
    params: PARAMS,
    inline: true,
    run: async (ctx, a) => (await syncKinds(`saltutil.sync_${kind}`, ctx, [kind], a.named))[kind],
  });
}

export const saltutilSyncFunctions: readonly ModuleFunction[] = [
  ...EXTMOD_KINDS.map(syncOne),
  defineFunction({
    name: 'saltutil.sync_all',
    doc: 'Sync custom grains, modules, states and renderers from the file server and load them; returns what changed per kind.',
    params: PARAMS,
    inline: true,
    run: (ctx, a) => syncKinds('saltutil.sync_all', ctx, EXTMOD_KINDS, a.named),
  }),
  defineFunction({
    name: 'saltutil.refresh_modules',
    doc: 'Load the custom modules and states (module_dirs and synced ones) again for the jobs that follow; returns true.',
    params: [],
    inline: true,
    run: async (ctx) => {
      if (!ctx.reloadExtmods) throw new BrineError('EXEC_FAILED', 'saltutil.refresh_modules needs the minion daemon; brine call loads the modules afresh on every call');
      const problems = await ctx.reloadExtmods(['modules', 'states']);
      if (problems.length > 0)
        throw new BrineError('MODULE_LOAD_FAILED', `saltutil.refresh_modules: ${problems.length} custom module file(s) could not be loaded: ${problemText(problems)}`, { details: { return: false } });
      return true;
    },
  }),
];
