// Typed views of a loaded configuration, keeping Salt's snake_case option names. The loader has
// already validated every known option, so these are views, not conversions.

import { BrineError } from '../util/errors.js';
import type { LoadedConfig } from './load.js';
import type { OptionType, Role } from './option-spec.js';
import type { OptionRow } from './schema.js';

/**
 * The TypeScript type of a value the loader accepted for a row (check-value.ts is the run-time
 * side). A `list` is only checked to be a list; module_dirs, the one list option, holds paths.
 */
type ValueOf<R extends OptionRow> = R extends { readonly type: 'enum'; readonly values: readonly (infer V)[] } ? V : R extends { readonly type: infer T extends OptionType } ? ValueOfType[T] : never;

/** One entry per OptionType; a type added to option-spec.ts does not compile until it is added here. */
interface ValueOfType {
  string: string;
  int: number;
  number: number;
  bool: boolean;
  list: string[];
  string_or_list: string | string[];
  string_or_bool: string | boolean;
  map: Record<string, unknown>;
  enum: string;
}

type Nullable<R extends OptionRow> = R extends { readonly nullable: true } ? null : never;

/** The rows of `R` that apply to role `Ro` (their roles list it); distributes over the union. */
type RowsFor<Ro extends Role, R extends OptionRow = OptionRow> = R extends unknown ? (Ro extends R['roles'][number] ? R : never) : never;

/** Rows without a default are absent unless configured (autosign_file, append_domain). */
type Defaulted<R extends OptionRow> = R extends { readonly default: undefined } ? never : R;

type ViewOf<Rows extends OptionRow> = { [R in Defaulted<Rows> as R['name']]: ValueOf<R> | Nullable<R> } & {
  [R in Exclude<Rows, Defaulted<Rows>> as R['name']]?: ValueOf<R> | Nullable<R>;
} & {
  /** Unknown keys (module settings such as `mysql.host`) are kept as they were written. */
  [key: string]: unknown;
};

/** Options both daemons have, typed from schema.ts. Times are in the unit schema.ts gives (mostly seconds). */
export type CommonOptions = ViewOf<RowsFor<'minion', RowsFor<'master'>>>;
/** Every master option, typed from schema.ts: adding a row there is enough to type it here. */
export type MasterOptions = ViewOf<RowsFor<'master'>>;
/** Every minion option, typed from schema.ts: adding a row there is enough to type it here. */
export type MinionOptions = ViewOf<RowsFor<'minion'>>;

function expectRole(cfg: LoadedConfig, role: Role): void {
  if (cfg.role !== role) {
    throw new BrineError('INTERNAL', `a ${cfg.role} configuration was used where a ${role} configuration is needed`);
  }
}

export function asMasterOptions(cfg: LoadedConfig): MasterOptions {
  expectRole(cfg, 'master');
  return cfg.opts as MasterOptions;
}

export function asMinionOptions(cfg: LoadedConfig): MinionOptions {
  expectRole(cfg, 'minion');
  return cfg.opts as MinionOptions;
}
