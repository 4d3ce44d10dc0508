// Salt options brine knows by name but does not implement. The loader keeps unknown keys as
// written (modules read `mysql.host` and the like), so without this table a Salt config that
// relies on ext_pillar or a reactor would start and silently do less (issue 22): each one set
// is a start-up warning saying what the operator does not get.

import { isDeepStrictEqual } from 'node:util';

export interface UnimplementedSaltOption {
  readonly name: string;
  /** What a configuration setting it does not get, completing "option X is ignored: ...". */
  readonly lost: string;
  /** Values that mean what brine does anyway (Salt's default or its equivalent): no warning. */
  readonly same?: readonly unknown[];
  /** Values brine honours beyond `same` (engines listing only the reactor engine). */
  readonly honours?: (value: unknown) => boolean;
}

/** Salt's engines list holding only the reactor engine (`- reactor` or `- reactor: {...}`), which brine runs (docs/reactor.md). */
function onlyReactorEngine(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  return value.every((e) => e === 'reactor' || (typeof e === 'object' && e !== null && !Array.isArray(e) && Object.keys(e).length === 1 && Object.hasOwn(e, 'reactor')));
}

const TABLE: readonly UnimplementedSaltOption[] = [
  { name: 'hgfs_remotes', lost: 'brine has no hgfs; salt:// is served from file_roots only' },
  { name: 'svnfs_remotes', lost: 'brine has no svnfs; salt:// is served from file_roots only' },
  { name: 'minionfs_whitelist', lost: 'brine has no minionfs; salt:// is served from file_roots only' },
  { name: 'master_tops', lost: 'master_tops are not consulted; only top files choose the states of a highstate' },
  { name: 'ext_job_cache', lost: 'minions do not send returns to an ext_job_cache returner; use master_job_cache (docs/returners.md)', same: [''] },
  { name: 'engines', lost: 'brine starts no engines but the reactor (docs/reactor.md)', same: [[]], honours: onlyReactorEngine },
  { name: 'pillar_opts', lost: "the master's configuration is not merged into pillar", same: [false] },
  { name: 'syndic_master', lost: 'brine has no syndic; several masters share minions through transport: nats instead' },
  { name: 'order_masters', lost: 'brine has no syndic', same: [false] },
  { name: 'cluster_id', lost: 'brine clusters masters through transport: nats, not cluster_id', same: [null] },
  { name: 'peer', lost: 'brine has no peer publishing: a minion cannot publish jobs to other minions', same: [{}] },
  { name: 'peer_run', lost: 'brine has no peer runner calls', same: [{}] },
  { name: 'file_recv', lost: 'the master accepts no files pushed by minions (cp.push)', same: [false] },
  { name: 'log_granular_levels', lost: 'brine has one log level per daemon (log_level, log_level_logfile)', same: [{}] },
  { name: 'key_logfile', lost: 'key events go to log_file' },
  { name: 'pidfile', lost: 'brine writes no pid file; a service manager (systemd) tracks the daemon' },
  { name: 'autosign_grains_dir', lost: 'keys are not autosigned by grains; use autosign_file' },
  { name: 'default_include', lost: 'brine reads <config_dir>/<role>.d/*.conf only', same: ['master.d/*.conf', 'minion.d/*.conf'] },
  { name: 'include', lost: 'brine reads <config_dir>/<role>.d/*.conf only; other included files are not read' },
];

const BY_NAME: ReadonlyMap<string, UnimplementedSaltOption> = new Map(TABLE.map((o) => [o.name, o]));

/** The row for a Salt option brine lacks, or undefined. */
export function unimplementedSaltOption(name: string): UnimplementedSaltOption | undefined {
  return BY_NAME.get(name);
}

/** Whether `value` of `name` makes a difference brine cannot honour. */
export function isUnhonoured(row: UnimplementedSaltOption, value: unknown): boolean {
  return !(row.same ?? []).some((v) => isDeepStrictEqual(v, value)) && row.honours?.(value) !== true;
}

/** The fileserver backends brine serves: Salt's `roots` (and its old spelling `root`). */
export const SERVED_BACKENDS: readonly string[] = ['roots', 'root'];

/** The ext_pillar kinds brine runs (src/pillar/ext registers them; a test keeps the two equal). */
export const SERVED_EXT_PILLARS: readonly string[] = ['cmd_json', 'cmd_yaml', 'file_tree', 'git'];
/** gitfs (Salt also accepts `git`), served by the master only (docs/fileserver.md). */
export const MASTER_BACKENDS: readonly string[] = ['gitfs', 'git'];
