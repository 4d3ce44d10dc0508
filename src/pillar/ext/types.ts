// What an ext_pillar kind is to the pillar compiler: a parser that checks its configuration at
// master start (a bad entry stops the master with CONFIG_VALUE) and returns a runnable source.
// Kinds are looked up by the key of their `ext_pillar` entry (registry.ts), so that git_pillar
// can plug in later beside cmd_json, cmd_yaml and file_tree.

import type { GpgOptions } from '../../render/gpg.js';
import type { PillarData } from '../../util/dict-merge.js';

/** What every ext_pillar gets at each render (Salt passes minion_id and the pillar so far). */
export interface ExtPillarContext {
  readonly minionId: string;
  readonly grains: Readonly<Record<string, unknown>>;
  readonly nodegroups: Readonly<Record<string, unknown>>;
  /** The pillar merged so far (SLS pillar, or {} with ext_pillar_first). */
  readonly pillar: PillarData;
  readonly gpg?: GpgOptions;
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
}

/** What a kind's parser gets besides its own value. */
export interface ExtPillarSetup {
  readonly label: string;
  /** pillar_roots of the master's pillarenv (file_tree's relative root_dir), or undefined. */
  readonly pillarenvRoots: readonly string[] | undefined;
  readonly pillarenv: string | null;
  /** ext_pillar_cmd_timeout, in milliseconds. */
  readonly cmdTimeoutMs: number;
}

export interface ExtPillarKind {
  readonly name: string;
  /** Checks the entry's value (Salt's `**val`, `*val` or `val`); throws CONFIG_VALUE saying what to write. */
  parse(value: unknown, setup: ExtPillarSetup): ExtPillarSource;
}
