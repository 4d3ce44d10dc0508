// What an ext_pillar kind is to the pillar compiler: a parser that checks its configuration at
// master start (a bad entry stops the master with CONFIG_VALUE) and returns a runnable source.
// Kinds are looked up by the key of their `ext_pillar` entry (registry.ts): cmd_json, cmd_yaml,
// file_tree and git (git_pillar, whose remotes the master also keeps fetched: `remotes`).

import type { GitRemotes } from '../../fileserver/git/index.js';
import type { GpgOptions } from '../../render/gpg.js';
import type { Logger } from '../../util/logger.js';
import type { PillarData } from '../../util/dict-merge.js';
import type { PillarSource } from '../source.js';

/**
 * What the pillar compiler lends a kind that holds pillar SLS trees of its own (git_pillar):
 * Salt's nested `Pillar(opts, grains, minion_id, env).compile_pillar(ext=False)`.
 */
export interface PillarTrees {
  /** The pillarenv of this render (the request's, else the master's), undefined for all. */
  readonly pillarenv: string | undefined;
  /** Renders a tree's top file and SLS for this minion, from an empty pillar, without ext_pillar. */
  render(source: PillarSource, pillarenv: string | undefined): Promise<{ pillar: PillarData; errors: string[] }>;
  /** pillar_source_merging_strategy and pillar_merge_lists. */
  merge(a: PillarData, b: PillarData): PillarData;
}

/** What every ext_pillar gets at each render (Salt passes minion_id and the pillar so far). */
export interface ExtPillarContext {
  readonly minionId: string;
  readonly grains: Readonly<Record<string, unknown>>;
  readonly nodegroups: Readonly<Record<string, unknown>>;
  /** The pillar merged so far (SLS pillar, or {} with ext_pillar_first). */
  readonly pillar: PillarData;
  readonly gpg?: GpgOptions;
  /** Set by compilePillar; a kind that needs it (git) fails with INTERNAL without it. */
  readonly trees?: PillarTrees;
}

/** One configured ext_pillar entry, ready to run. */
export interface ExtPillarSource {
  /** `ext_pillar #2 (cmd_json)`: how errors name it (never the command text, which may hold a token). */
  readonly label: string;
  /** The data for this minion; throws a coded error (EXT_PILLAR_FAILED) when it cannot be had. */
  run(ctx: ExtPillarContext): Promise<PillarData>;
  /**
   * A stamp that changes when the data may change (file_tree's files); undefined = it may change
   * at any time (a command), so the master renders the pillar again at every request, as Salt does.
   */
  stamp(): string | undefined;
  /** Pillar environments it serves beyond pillar_roots' (git_pillar branches), for a pillarenv a minion asks for. */
  envs?(): string[];
  /** Git remotes the master keeps fetched for it (git_pillar). */
  readonly remotes?: GitRemotes;
}

/** What a kind's parser gets besides its own value. */
export interface ExtPillarSetup {
  readonly label: string;
  /** pillar_roots of the master's pillarenv (file_tree's relative root_dir), or undefined. */
  readonly pillarenvRoots: readonly string[] | undefined;
  readonly pillarenv: string | null;
  /** ext_pillar_cmd_timeout, in milliseconds. */
  readonly cmdTimeoutMs: number;
  /** The master's options (git_pillar_* and the like) and where it may keep caches. */
  readonly options?: Readonly<Record<string, unknown>>;
  readonly cachedir?: string;
  readonly logger?: Logger;
}

export interface ExtPillarKind {
  readonly name: string;
  /** Checks the entry's value (Salt's `**val`, `*val` or `val`); throws CONFIG_VALUE saying what to write. */
  parse(value: unknown, setup: ExtPillarSetup): ExtPillarSource;
}
