// Shapes shared by every target matcher: target types, the master's view of the fleet (accepted
// IDs plus cached grains) and the result of an expected-minion computation.

export type TargetType = 'glob' | 'pcre' | 'list' | 'grain' | 'grain_pcre' | 'ipcidr' | 'compound' | 'nodegroup' | 'pillar' | 'pillar_pcre' | 'pillar_exact';
export type Target = string | readonly string[];

/** A minion's grains: a plain mapping (config grains may replace core grains with any value). */
export type Grains = Readonly<Record<string, unknown>>;

/** The master's cached grains of one minion, or undefined when it has none (never sent, or purged). */
export type GrainsLookup = (id: string) => Grains | undefined;

/** Salt's DEFAULT_TARGET_DELIM. */
export const DEFAULT_DELIMITER = ':';

export interface TargetResult {
  /** Candidate IDs the target selects (expected minions). */
  matched: string[];
  /** List entries that name no known ID (Salt reports them as not returning). */
  missing: string[];
}

export interface MatchOptions {
  /** Cached grains per minion; absent means no minion has cached data. */
  grains?: GrainsLookup;
  /** Cached pillar per minion (the master's pillar cache); absent means none has any. */
  pillar?: GrainsLookup;
  /**
   * The master's minion_data_cache. Off: grain, grain_pcre, ipcidr and compound targets expect
   * every accepted minion, and the minions sort themselves out (Salt's behaviour).
   */
  dataCache?: boolean;
  /** Key delimiter for grain and grain_pcre targets (`--delimiter`), default `:`. */
  delimiter?: string;
  /** The master's `nodegroups` option, for nodegroup targets and `N@` in compound ones. */
  nodegroups?: Readonly<Record<string, unknown>>;
}

/** What the master knows when it computes expected minions. */
export interface FleetView {
  /** Accepted minion IDs, the base set of every target. */
  ids: readonly string[];
  grains: GrainsLookup;
  /** Cached pillar per minion, for pillar targets (greedy like grains). */
  pillar: GrainsLookup;
  dataCache: boolean;
  delimiter: string;
  nodegroups: Readonly<Record<string, unknown>>;
}

/** What a minion knows about itself when it re-checks a job's target. */
export interface SelfView {
  id: string;
  grains: Grains;
  /** The minion's own pillar, for pillar targets; absent = empty. */
  pillar?: Grains;
  delimiter: string;
}

export interface TargetMatcher {
  readonly type: TargetType;
  /** Master side: which accepted IDs the target selects (Salt's check_minions, greedy). */
  expected(tgt: Target, fleet: FleetView): TargetResult;
  /** Minion side: does the target select this minion. */
  matchesSelf(tgt: Target, self: SelfView): boolean;
}
