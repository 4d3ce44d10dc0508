// Stage "high data" for a run: renders the requested SLS files and everything they include,
// then applies `extend` and `exclude`, with IDs unique across the run and Salt's
// state_auto_order (included files first, then each file's states in definition order).

import { isBrineError } from '../../util/errors.js';
import { compileError, type CompileError, type Exclusion, type HighArg, type HighId, type StateDecl } from './high-types.js';
import { parseSls } from './parse-sls.js';
import { REQUISITE_KEYS } from './requisite-kinds.js';

/** A rendered SLS file, or undefined when the environment has neither `a/b.sls` nor `a/b/init.sls`. */
export interface SlsLoader {
  load(sls: string, env: string): Promise<{ data: unknown; source: string } | undefined>;
}

export interface AssembleOptions {
  /** Salt's state_auto_order (default true): states without `order` run in definition order. */
  autoOrder?: boolean;
  /** state.sls exclude=: removed as if every SLS had these `exclude` entries. */
  exclude?: Exclusion[];
  /**
   * false: the rendered high data as is, `extend` and `exclude` not applied (Salt's
   * state.show_low_sls compiles render_highstate's output directly). Default true.
   */
  reconcile?: boolean;
}

/** Salt's first auto order (iorder): explicit `order: <n>` below it runs earlier. */
export const AUTO_ORDER_START = 10000;

/** `.sub` and `..sub` relative to the including SLS's package (an init.sls is its own package). */
export function resolveInclude(inc: string, parentSls: string, parentSource: string): string | undefined {
  const m = /^(\.+)(.*)$/.exec(inc);
  if (!m) return inc;
  const levels = m[1]!.length;
  const comps = parentSls.split('.');
  if (parentSource.endsWith('/init.sls') || parentSource === 'init.sls') comps.push('init');
  if (levels > comps.length) return undefined;
  const base = comps.slice(0, comps.length - levels);
  return [...base, m[2]!].filter((p) => p !== '').join('.');
}

function mergeExtension(target: HighId, ext: HighId, errors: CompileError[]): void {
  for (const decl of ext.decls) {
    const existing = target.decls.find((d) => d.state === decl.state);
    if (!existing) {
      if (decl.fun === undefined) {
        errors.push(
          compileError(`Cannot extend state '${decl.state}' of ID '${ext.id}' in SLS '${ext.sls}': the ID has no '${decl.state}' state, so the extension must name a function`, `${ext.sls}:${ext.id}`),
        );
        continue;
      }
      target.decls.push({ ...decl, args: [...decl.args] });
      continue;
    }
    if (decl.fun !== undefined) existing.fun = decl.fun;
    for (const [key, value] of decl.args) {
      const i = existing.args.findIndex(([k]) => k === key);
      // requisites accumulate (Salt appends them); any other argument is replaced
      if (REQUISITE_KEYS.has(key) && i >= 0 && Array.isArray(existing.args[i]![1]) && Array.isArray(value)) {
        existing.args[i] = [key, [...(existing.args[i]![1] as unknown[]), ...value]];
      } else if (i >= 0) existing.args[i] = [key, value];
      else existing.args.push([key, value] as HighArg);
    }
  }
}

/** Renders and assembles the high data of a run; every error is collected, none thrown. */
export async function assembleHigh(requests: ReadonlyArray<{ sls: string; env: string }>, loader: SlsLoader, opts: AssembleOptions = {}): Promise<{ high: HighId[]; errors: CompileError[] }> {
  const autoOrder = opts.autoOrder ?? true;
  const errors: CompileError[] = [];
  const high = new Map<string, HighId>();
  const extensions: HighId[] = [];
  const exclusions: Exclusion[] = [...(opts.exclude ?? [])];
  const visited = new Set<string>();
  let iorder = AUTO_ORDER_START;

  /**
   * Renders an SLS and its includes; returns the IDs this call added in Salt's high data order:
   * the SLS's own IDs, then what each include brought (render_state updates its own state dict
   * with each included one), though the included files were rendered, and auto-ordered, first.
   */
  const visit = async (sls: string, env: string, includedBy: string | undefined): Promise<HighId[]> => {
    const key = `${env}:${sls}`;
    const added: HighId[] = [];
    const own: HighId[] = [];
    if (visited.has(key)) return added;
    visited.add(key);
    let loaded: { data: unknown; source: string } | undefined;
    try {
      loaded = await loader.load(sls, env);
    } catch (err) {
      // no file server is not a problem of the SLS files: the run fails with that code
      if (isBrineError(err, 'FILESERVER_UNAVAILABLE')) throw err;
      const message = isBrineError(err) ? `Rendering SLS '${key}' failed: ${err.message}` : `Rendering SLS '${key}' failed: ${String(err)}`;
      errors.push(compileError(message, `${sls}:`));
      return added;
    }
    if (!loaded) {
      const by = includedBy ? ` (included by SLS '${includedBy}')` : '';
      errors.push(
        compileError(`Specified SLS '${sls}' in saltenv '${env}' is not available on the salt master or through a configured fileserver${by}`, includedBy ? `${includedBy}:include` : `${sls}:`),
      );
      return added;
    }
    const { parsed, errors: parseErrors } = parseSls(loaded.data, sls, env, loaded.source);
    errors.push(...parseErrors);
    for (const inc of parsed.include) {
      const target = resolveInclude(inc.sls, sls, loaded.source);
      if (target === undefined) {
        errors.push(compileError(`Attempted relative include of '${inc.sls}' within SLS '${env}:${sls}' goes beyond top level package`, `${sls}:include`));
        continue;
      }
      // Salt's render_state appends the including SLS to every state the include rendered (an SLS
      // already rendered by another include is not rendered again, and gets nothing appended)
      const brought = await visit(target, inc.env ?? env, sls);
      for (const h of brought) h.includedFrom = [...(h.includedFrom ?? []), sls];
      added.push(...brought);
    }
    for (const h of parsed.ids) {
      const other = high.get(h.id);
      if (other) {
        errors.push(
          compileError(
            `Detected conflicting IDs, SLS IDs need to be globally unique. The conflicting ID is '${h.id}' and is found in SLS '${other.env}:${other.sls}' and SLS '${h.env}:${h.sls}'`,
            `${other.sls}:${h.id}`,
            `${h.sls}:${h.id}`,
          ),
        );
        continue;
      }
      // _handle_iorder: a declaration with its own `order` takes no auto order (and uses up none)
      if (autoOrder) for (const d of h.decls as StateDecl[]) if (!d.args.some(([k]) => k === 'order')) d.autoOrder = iorder++;
      high.set(h.id, h);
      own.push(h);
    }
    extensions.push(...parsed.extend);
    exclusions.push(...parsed.exclude);
    return [...own, ...added];
  };

  const ordered: HighId[] = [];
  for (const r of requests) ordered.push(...(await visit(r.sls, r.env, undefined)));
  if (opts.reconcile === false) return { high: ordered, errors };

  for (const ext of extensions) {
    const target = high.get(ext.id);
    if (!target) {
      errors.push(
        compileError(
          `Cannot extend ID '${ext.id}' in '${ext.env}:${ext.sls}'. It is not part of the high state. This is likely due to a missing include statement or an incorrectly typed ID. Ensure that a state with an ID of '${ext.id}' is available in environment '${ext.env}' and to SLS '${ext.sls}'`,
          `${ext.sls}:${ext.id}`,
        ),
      );
      continue;
    }
    mergeExtension(target, ext, errors);
  }

  const exSls = new Set(exclusions.flatMap((e) => ('sls' in e ? [e.sls] : [])));
  const exId = new Set(exclusions.flatMap((e) => ('id' in e ? [e.id] : [])));
  const kept = ordered.filter((h) => !exSls.has(h.sls) && !exId.has(h.id));
  return { high: kept, errors };
}
