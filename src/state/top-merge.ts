// Salt's top file rules as pure functions: which environments' top files a highstate reads
// (BaseHighState._get_envs and get_tops) and how the top files read merge into one top
// (merge_tops with the strategies `merge`, `same` and `merge_all`; the pillar's own merge_tops).
// Rendering the files and matching targets are top-file.ts's.

/** Salt's top_file_merging_strategy values; `pillar` is salt/pillar's merge_tops (not an option value). */
export const TOP_MERGING_STRATEGIES = ['merge', 'same', 'merge_all'] as const;
export type TopMergingStrategy = (typeof TOP_MERGING_STRATEGIES)[number] | 'pillar';

/** One rendered top file: environment section -> its body (target -> entries when well formed). */
export type TopData = Readonly<Record<string, unknown>>;

/** The top files read, per environment in reading order; an environment without one has `{}`. */
export type TopsByEnv = ReadonlyMap<string, readonly TopData[]>;

/** One target of the merged top, with the environment whose top file gave it (for messages). */
export interface TopTarget {
  entries: unknown;
  from: string;
}

/** The merged top: environment -> target -> entries, in Salt's insertion order. */
export type MergedTop = Map<string, Map<string, TopTarget>>;

export interface TopReadOptions {
  /** `saltenv=` of the run, or the minion's `saltenv` option: only this environment's top file. */
  saltenv?: string | undefined;
  /** `state_top_saltenv`: only this environment's top file, the strategy still applies. */
  stateTopSaltenv?: string | undefined;
  /** `env_order`: the environments whose top files are read, in this order. */
  envOrder?: readonly string[] | undefined;
}

/**
 * The environments whose top files are read, in order (Salt's get_tops with _get_envs): `saltenv`
 * alone, else `state_top_saltenv` alone, else `env_order` (only those environments the file
 * server has, when it lists any), else base and then every other environment.
 */
export function topEnvsToRead(available: readonly string[], o: TopReadOptions): string[] {
  if (o.saltenv) return [o.saltenv];
  if (o.stateTopSaltenv) return [o.stateTopSaltenv];
  const order = [...new Set(o.envOrder ?? [])];
  if (order.length > 0) return available.length > 0 ? order.filter((e) => available.includes(e)) : order;
  return ['base', ...available.filter((e) => e !== 'base')];
}

function isMapping(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The targets of a section; a body that is not a mapping has none (verifyTop reports it). */
function targetsOf(body: unknown): Array<[string, unknown]> {
  return isMapping(body) ? Object.entries(body) : [];
}

function put(top: MergedTop, env: string, tgt: string, t: TopTarget): void {
  let targets = top.get(env);
  if (!targets) {
    targets = new Map();
    top.set(env, targets);
  }
  targets.set(tgt, t);
}

/** Every section of a top file except `include` (top-file includes are not supported: verifyTop says so). */
function sections(ctop: TopData): Array<[string, unknown]> {
  return Object.entries(ctop).filter(([env]) => env !== 'include');
}

/** A section a strategy reads whose body is not a mapping of targets: [top file's env, section]. */
export type Malformed = Array<[string, string]>;

function putSection(top: MergedTop, env: string, body: unknown, from: string, bad: Malformed): void {
  if (!isMapping(body)) bad.push([from, env]);
  for (const [tgt, entries] of targetsOf(body)) put(top, env, tgt, { entries, from });
}

/**
 * `merge` (the default): base's top file is authoritative for every section it has; another
 * environment's top file counts only for its own section, and only when base's had none.
 */
function mergeMerge(tops: TopsByEnv, bad: Malformed): MergedTop {
  const top: MergedTop = new Map();
  for (const ctop of tops.get('base') ?? []) for (const [env, body] of sections(ctop)) putSection(top, env, body, 'base', bad);
  for (const [cenv, ctops] of tops) {
    if (cenv === 'base') continue;
    for (const ctop of ctops) {
      for (const [env, body] of sections(ctop)) {
        if (env !== cenv || top.has(env)) continue;
        putSection(top, env, body, cenv, bad);
      }
    }
  }
  return top;
}

const isEmptyTop = (ctops: readonly TopData[]): boolean => ctops.every((c) => Object.keys(c).length === 0);

/**
 * `same`: each environment's SLS come from its own top file only; an environment without a top
 * file takes its section from the `default_top` environment's top file.
 */
function mergeSame(tops: TopsByEnv, defaultTop: string, bad: Malformed): MergedTop {
  const top: MergedTop = new Map();
  for (const [cenv, ctops] of tops) {
    const own = !isEmptyTop(ctops);
    const source = own ? ctops : (tops.get(defaultTop) ?? []);
    for (const ctop of source) {
      for (const [env, body] of sections(ctop)) if (env === cenv) putSection(top, env, body, own ? cenv : defaultTop, bad);
    }
  }
  return top;
}

/** A target's match entry (the last mapping) and its SLS names (Salt's _read_tgt). */
function readTarget(entries: unknown): { match: unknown; names: unknown[] } {
  let match: unknown;
  const names: unknown[] = [];
  for (const e of Array.isArray(entries) ? entries : []) {
    if (isMapping(e)) match = e;
    else if (typeof e === 'string') names.push(e);
  }
  return { match, names };
}

/**
 * `merge_all`: every section of every top file, in reading order; a target already present gets
 * the SLS names it lacks appended, and the later match type wins.
 */
function mergeAll(tops: TopsByEnv, bad: Malformed): MergedTop {
  const top: MergedTop = new Map();
  for (const [cenv, ctops] of tops) {
    for (const ctop of ctops) {
      for (const [env, body] of sections(ctop)) {
        if (!isMapping(body)) bad.push([cenv, env]);
        for (const [tgt, entries] of targetsOf(body)) {
          const had = top.get(env)?.get(tgt);
          if (!had || !Array.isArray(had.entries) || !Array.isArray(entries)) {
            put(top, env, tgt, { entries, from: cenv });
            continue;
          }
          const a = readTarget(had.entries);
          const b = readTarget(entries);
          const merged: unknown[] = [];
          const match = b.match ?? a.match;
          if (match !== undefined) merged.push(match);
          merged.push(...a.names);
          for (const n of b.names) if (!merged.includes(n)) merged.push(n);
          put(top, env, tgt, { entries: merged, from: had.from });
        }
      }
    }
  }
  return top;
}

/** The pillar's merge (salt/pillar merge_tops): every section of every top file; a later top file's same target replaces it. */
function mergePillar(tops: TopsByEnv, bad: Malformed): MergedTop {
  const top: MergedTop = new Map();
  for (const [cenv, ctops] of tops) for (const ctop of ctops) for (const [env, body] of sections(ctop)) putSection(top, env, body, cenv, bad);
  return top;
}

/**
 * Merges the top files read (Salt's merge_tops). `malformed` lists the sections it read that are
 * not mappings of targets (Salt: "Unable to render top file. No targets found.").
 */
export function mergeTops(tops: TopsByEnv, strategy: TopMergingStrategy, defaultTop = 'base'): { top: MergedTop; malformed: Malformed } {
  const bad: Malformed = [];
  const merge = { merge: mergeMerge, merge_all: mergeAll, pillar: mergePillar, same: (t: TopsByEnv, b: Malformed) => mergeSame(t, defaultTop, b) }[strategy];
  return { top: merge(tops, bad), malformed: bad };
}
