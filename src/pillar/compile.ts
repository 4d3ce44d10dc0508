// The pillar compiler (Salt's Pillar.compile_pillar for SLS pillar): evaluates the pillar top
// files with the same matchers as states, renders each matched SLS with the minion's grains and
// the pillar merged so far, follows `include`, and merges in top-file order; then the ext_pillar
// sources run over it (before it with ext_pillar_first). Errors never throw: they are collected
// with file and line, as Salt's `_errors`, and the caller decides what to keep.

import { renderSls, type GpgOptions } from '../render/index.js';
import { evaluateTop, resolveInclude, slsVariables } from '../state/index.js';
import { globMatch } from '../targeting/index.js';
import { BrineError, isBrineError } from '../util/errors.js';
import { mergePillar, type MergeStrategy, type PillarData } from '../util/dict-merge.js';
import { type ExtPillarSource, type PillarTrees, runExtPillars } from './ext/index.js';
import type { PillarSource } from './source.js';

export interface PillarMinion {
  id: string;
  grains: Readonly<Record<string, unknown>>;
  nodegroups?: Readonly<Record<string, unknown>>;
}

export interface PillarCompileOptions {
  strategy: MergeStrategy;
  mergeLists: boolean;
  /** Only this environment's top file and SLS (Salt's pillarenv); all environments when absent. */
  pillarenv?: string;
  /** Render with Jinja2's lenient Undefined (the allow_undefined option). */
  allowUndefined?: boolean;
  /**
   * The grains came from the minion (the master renders them): a template that reads a grain
   * string holding a control character fails with GRAIN_UNSAFE (threats.md #45). A masterless
   * minion rendering its own grains does not need it.
   */
  untrustedGrains?: boolean;
  /** gpg_keydir / gpg_decrypt_must_succeed for `#!yaml|gpg` files; absent, `|gpg` is refused. */
  gpg?: GpgOptions;
  /** The ext_pillar sources, in order (planExtPillar); none when absent. */
  ext?: readonly ExtPillarSource[];
  /** ext_pillar_first: the ext_pillar data comes first and the SLS files see it as `pillar`. */
  extFirst?: boolean;
}

export interface PillarResult {
  pillar: PillarData;
  /** Salt's `_errors`: each names the file (and line, for render errors) and what went wrong. */
  errors: string[];
  /** environment -> SLS names the top files gave this minion; empty when nothing matched. */
  top: Record<string, string[]>;
  /** Grain paths a template read and GRAIN_UNSAFE refused (with untrustedGrains); empty otherwise. */
  unsafeGrains: string[];
}

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

const ONLY_LOCAL =
  "brine renders pillar with the functions a template answers itself only: grains.get, grains.filter_by, pillar.get, config.get (from the minion's grains and the pillar so far) and the data functions slsutil.*, defaults.merge/update/deepcopy, file.dirname/basename/join/normpath, grains.equals/has_value, config.option, status.time, log.*, pillar.file_exists";

class Compilation {
  readonly errors: string[] = [];
  readonly unsafeGrains = new Set<string>();
  pillar: PillarData = {};

  constructor(
    private readonly source: PillarSource,
    private readonly minion: PillarMinion,
    private readonly opts: PillarCompileOptions,
  ) {}

  /** Renders one file of the tree (an SLS or the top file) to data; throws the renderer's coded error. */
  async render(relPath: string, sls: string, env: string, text: string, extra: Record<string, unknown> = {}): Promise<unknown> {
    const source = this.label(relPath, env);
    return renderSls(text, {
      source,
      saltenv: env,
      pillar: true,
      ...(this.opts.untrustedGrains ? { untrustedGrains: { minion: this.minion.id, onRefused: (g: string) => this.unsafeGrains.add(g) } } : {}),
      context: {
        grains: this.minion.grains,
        pillar: this.pillar,
        opts: { id: this.minion.id, saltenv: env, pillarenv: this.opts.pillarenv ?? null, ...(this.opts.allowUndefined ? { allow_undefined: true } : {}) },
        saltenv: env,
        pillarenv: this.opts.pillarenv ?? null,
        ...slsVariables(sls, relPath),
        ...extra,
      },
      callFunction: (fun, args, kwargs) => {
        if (fun === 'pillar.file_exists') return this.fileExists(source, args, kwargs);
        throw new BrineError('RENDER_FAILED', `${source}: salt['${fun}'] cannot run in a pillar SLS: ${ONLY_LOCAL}`);
      },
      loadFile: (name) => this.source.read(name, env)?.text,
      ...(this.opts.gpg ? { gpg: this.opts.gpg } : {}),
    });
  }

  /**
   * Salt's pillar.file_exists(path, saltenv=None), which pillar top files use to include an
   * optional SLS (secrets.sls): true when a pillar_roots directory of the environment (of every
   * environment without saltenv; none for an unknown one) holds that file.
   */
  fileExists(source: string, args: unknown[], kwargs: Record<string, unknown>): boolean {
    const relPath = args[0] ?? kwargs.path;
    const saltenv = args[1] ?? kwargs.saltenv ?? null;
    if (typeof relPath !== 'string' || relPath === '') throw new BrineError('RENDER_FAILED', `${source}: salt['pillar.file_exists'] takes a path relative to pillar_roots, e.g. 'secrets.sls'`);
    const envs = saltenv === null ? this.source.envs() : this.source.envs().filter((e) => e === saltenv);
    return envs.some((env) => this.source.read(relPath, env) !== undefined);
  }

  label(relPath: string, env: string): string {
    return `pillar_roots ${env}:${relPath}`;
  }

  find(sls: string, env: string): { relPath: string; text: string } | undefined {
    const base = sls.replace(/\./g, '/');
    for (const relPath of [`${base}.sls`, `${base}/init.sls`]) {
      let hit: { text: string } | undefined;
      try {
        hit = this.source.read(relPath, env);
      } catch (err) {
        this.errors.push(`${this.label(relPath, env)}: ${isBrineError(err) ? err.message : String(err)}`);
        return undefined;
      }
      if (hit) return { relPath, text: hit.text };
    }
    return undefined;
  }

  /** Salt's render_pstate: one SLS and what it includes (the including file's keys win). */
  async renderPstate(sls: string, env: string, mods: Set<string>, defaults: Record<string, unknown> = {}): Promise<PillarData | undefined> {
    const found = this.find(sls, env);
    if (!found) {
      this.errors.push(
        `Specified SLS '${sls}' in environment '${env}' is not available on the master (looked for ${sls.replace(/\./g, '/')}.sls and ${sls.replace(/\./g, '/')}/init.sls in pillar_roots)`,
      );
      return undefined;
    }
    mods.add(sls);
    let data: unknown;
    try {
      data = await this.render(found.relPath, sls, env, found.text, defaults);
    } catch (err) {
      this.errors.push(`Rendering SLS '${sls}' failed: ${isBrineError(err) ? err.message : String(err)}`);
      return undefined;
    }
    if (data === null || data === undefined) return {};
    if (!isMapping(data)) {
      this.errors.push(
        `${this.label(found.relPath, env)}: SLS '${sls}' does not render to a dictionary (it renders to ${Array.isArray(data) ? 'a list' : typeof data}); pillar SLS files are mappings of keys to values`,
      );
      return undefined;
    }
    if (!Object.hasOwn(data, 'include')) return data;
    const { include, ...state } = data;
    if (!Array.isArray(include)) {
      this.errors.push(`${this.label(found.relPath, env)}: 'include' must be a list of SLS names`);
      return state;
    }
    const layers: PillarData[] = [];
    for (const entry of include) {
      let name: string;
      let incDefaults: Record<string, unknown> = {};
      let key: string | undefined;
      if (typeof entry === 'string') name = entry;
      else if (isMapping(entry) && Object.keys(entry).length === 1) {
        name = Object.keys(entry)[0]!;
        const opts = entry[name];
        if (isMapping(opts)) {
          if (isMapping(opts.defaults)) incDefaults = opts.defaults;
          if (typeof opts.key === 'string') key = opts.key;
        }
      } else {
        this.errors.push(`${this.label(found.relPath, env)}: an include entry must be an SLS name or {name: {defaults: ..., key: ...}}, not ${JSON.stringify(entry)}`);
        continue;
      }
      const resolved = resolveInclude(name, sls, found.relPath);
      if (resolved === undefined) {
        this.errors.push(`${this.label(found.relPath, env)}: include '${name}' goes above the top of the environment`);
        continue;
      }
      const names = /[*?[]/.test(resolved) ? this.source.slsNames(env).filter((n) => globMatch(resolved, n)) : [resolved];
      for (const sub of names) {
        if (mods.has(sub)) continue;
        let nstate = await this.renderPstate(sub, env, mods, incDefaults);
        if (nstate === undefined || Object.keys(nstate).length === 0) continue;
        // key: a:b nests the included data under {a: {b: ...}}
        if (key !== undefined) for (const frag of key.split(':').reverse()) nstate = { [frag]: nstate };
        layers.push(nstate);
      }
    }
    layers.push(state);
    return layers.reduce((acc, l) => mergePillar(acc, l, this.opts.strategy, this.opts.mergeLists), {});
  }
}

/** Renders this minion's pillar from the source. Never throws for a bad tree: see `errors`. */
export async function compilePillar(source: PillarSource, minion: PillarMinion, opts: PillarCompileOptions): Promise<PillarResult> {
  const c = new Compilation(source, minion, opts);
  const trees: PillarTrees = {
    pillarenv: opts.pillarenv,
    // Salt's git_pillar: Pillar(opts, grains, minion_id, env).compile_pillar(ext=False)
    render: async (tree, pillarenv) => {
      const { ext: _ext, extFirst: _first, pillarenv: _env, ...rest } = opts;
      const r = await compilePillar(tree, minion, { ...rest, ...(pillarenv !== undefined ? { pillarenv } : {}) });
      for (const g of r.unsafeGrains) c.unsafeGrains.add(g);
      return { pillar: r.pillar, errors: r.errors };
    },
    merge: (a, b) => mergePillar(a, b, opts.strategy, opts.mergeLists),
  };
  const extCtx = { minionId: minion.id, grains: minion.grains, nodegroups: minion.nodegroups ?? {}, trees, ...(opts.gpg ? { gpg: opts.gpg } : {}) };
  const runExt = async (): Promise<void> => {
    if (!opts.ext || opts.ext.length === 0) return;
    const r = await runExtPillars(opts.ext, extCtx, c.pillar, opts.strategy, opts.mergeLists);
    c.pillar = r.pillar;
    c.errors.push(...r.errors);
  };
  // Salt's compile_pillar: ext_pillar_first renders the SLS files over the ext_pillar data
  if (opts.extFirst) await runExt();
  let envs: string[];
  try {
    envs = source.envs();
  } catch (err) {
    return { pillar: {}, errors: [`pillar_roots: ${isBrineError(err) ? err.message : String(err)}`], top: {}, unsafeGrains: [] };
  }
  // a pillarenv only an ext_pillar serves (a git_pillar branch): no SLS of pillar_roots apply
  if (opts.pillarenv !== undefined && !envs.includes(opts.pillarenv) && opts.ext?.some((s) => s.envs?.().includes(opts.pillarenv!))) envs = [];
  else if (opts.pillarenv !== undefined && !envs.includes(opts.pillarenv)) {
    return { pillar: {}, errors: [`pillarenv '${opts.pillarenv}' is not an environment of pillar_roots (${envs.join(', ') || 'none'})`], top: {}, unsafeGrains: [] };
  }
  const loader = {
    load: async (sls: string, env: string) => {
      const found = c.find(sls, env);
      if (!found) return undefined;
      return { data: await c.render(found.relPath, sls, env, found.text), source: c.label(found.relPath, env) };
    },
  };
  // salt/pillar merge_tops: every section of every top file (top_file_merging_strategy is the states')
  const { top, errors } =
    envs.length === 0 ? { top: {}, errors: [] } : await evaluateTop(envs, loader, minion, { ...(opts.pillarenv !== undefined ? { saltenv: opts.pillarenv } : {}), strategy: 'pillar' });
  for (const e of errors) c.errors.push(e.message);
  for (const [env, patterns] of Object.entries(top)) {
    if (!envs.includes(env)) {
      c.errors.push(`the pillar top file names environment '${env}', which pillar_roots does not have`);
      continue;
    }
    const mods = new Set<string>();
    const avail = source.slsNames(env);
    const names: string[] = [];
    for (const p of patterns) {
      const hits = /[*?[]/.test(p) ? avail.filter((n) => globMatch(p, n)) : [];
      for (const n of hits.length > 0 ? hits : [p]) if (!names.includes(n)) names.push(n);
    }
    for (const sls of names) {
      if (mods.has(sls)) continue;
      const pstate = await c.renderPstate(sls, env, mods);
      if (pstate !== undefined) c.pillar = mergePillar(c.pillar, pstate, opts.strategy, opts.mergeLists);
    }
  }
  if (!opts.extFirst) await runExt();
  return { pillar: c.pillar, errors: c.errors, top, unsafeGrains: [...c.unsafeGrains] };
}
