// The `ext_pillar` option (a list of single-key mappings, in order) turned into runnable sources,
// and their run for one minion: each gets the pillar so far and its data is merged over it with
// pillar_source_merging_strategy and pillar_merge_lists (Salt's Pillar.ext_pillar). Kinds are a
// registry keyed by the entry's key; one brine does not have is skipped with a start-up warning.

import { BrineError, isBrineError, errorMessage } from '../../util/errors.js';
import { mergePillar, type MergeStrategy, type PillarData } from '../../util/dict-merge.js';
import { CMD_JSON, CMD_YAML } from './cmd.js';
import { FILE_TREE } from './file-tree.js';
import { GIT } from './git-pillar.js';
import type { ExtPillarContext, ExtPillarKind, ExtPillarSetup, ExtPillarSource } from './types.js';

const KINDS: ReadonlyMap<string, ExtPillarKind> = (() => {
  const m = new Map<string, ExtPillarKind>();
  for (const k of [CMD_JSON, CMD_YAML, FILE_TREE, GIT]) {
    if (m.has(k.name)) throw new Error(`ext_pillar kind ${k.name} registered twice`);
    m.set(k.name, k);
  }
  return m;
})();

/** The ext_pillar kinds brine runs. */
export const EXT_PILLAR_KINDS: readonly string[] = [...KINDS.keys()];

export interface ExtPillarPlan {
  readonly sources: readonly ExtPillarSource[];
  /** Kinds configured that brine does not have (git, mongo, ...): skipped, as Salt skips an unavailable one. */
  readonly unsupported: readonly string[];
}

export type ExtPillarParseSetup = Omit<ExtPillarSetup, 'label'>;

/** Checks the `ext_pillar` option at master start; throws CONFIG_VALUE naming the bad entry. */
export function planExtPillar(option: unknown, setup: ExtPillarParseSetup): ExtPillarPlan {
  if (option === undefined || option === null) return { sources: [], unsupported: [] };
  if (!Array.isArray(option)) {
    throw new BrineError('CONFIG_VALUE', "ext_pillar must be a list of one-key mappings, e.g. 'ext_pillar: [{cmd_json: /usr/local/bin/pillar %s}]'");
  }
  const sources: ExtPillarSource[] = [];
  const unsupported: string[] = [];
  option.forEach((entry, i) => {
    const keys = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? Object.keys(entry) : [];
    if (keys.length !== 1) {
      throw new BrineError('CONFIG_VALUE', `ext_pillar entry #${i + 1} must be a mapping with one key, the ext_pillar's name (e.g. '- file_tree: {root_dir: /srv/ext_pillar}')`);
    }
    const name = keys[0]!;
    const kind = KINDS.get(name);
    if (kind === undefined) {
      if (!unsupported.includes(name)) unsupported.push(name);
      return;
    }
    sources.push(kind.parse((entry as Record<string, unknown>)[name], { ...setup, label: `ext_pillar #${i + 1} (${name})` }));
  });
  return { sources, unsupported };
}

export interface ExtPillarRun {
  pillar: PillarData;
  errors: string[];
}

/**
 * Runs the sources in order over `pillar`, each seeing the pillar merged so far. A source that
 * fails adds its error (Salt's "Failed to load ext_pillar <name>: ...") and the others still run.
 */
export async function runExtPillars(
  sources: readonly ExtPillarSource[],
  ctx: Omit<ExtPillarContext, 'pillar'>,
  pillar: PillarData,
  strategy: MergeStrategy,
  mergeLists: boolean,
): Promise<ExtPillarRun> {
  const errors: string[] = [];
  let out = pillar;
  for (const s of sources) {
    try {
      const data = await s.run({ ...ctx, pillar: out });
      if (Object.keys(data).length > 0) out = mergePillar(out, data, strategy, mergeLists);
    } catch (err) {
      errors.push(`Failed to load ${isBrineError(err) && err.message.startsWith(s.label) ? err.message : `${s.label}: ${errorMessage(err)}`}`);
    }
  }
  return { pillar: out, errors };
}
