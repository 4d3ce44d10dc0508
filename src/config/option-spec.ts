// The shape of one row in the option table (schema.ts): its type, default per role, unit and
// whether it is a path under root_dir. Kept apart from the table so the table reads as data.

export type Role = 'master' | 'minion';
export const ROLES: readonly Role[] = ['master', 'minion'];

export type OptionType =
  | 'string'
  | 'int'
  | 'number'
  | 'bool'
  | 'list'
  | 'string_or_list'
  /** Salt's `str or bool` options such as minion_id_remove_domain. */
  | 'string_or_bool'
  | 'map'
  | 'enum';

export type OptionUnit = 's' | 'ms' | 'min' | 'bytes';

/** A default that differs by role (pki_dir, cachedir ...). Built with byRole(). */
export class RoleDefault {
  constructor(
    readonly master: unknown,
    readonly minion: unknown,
  ) {}
}

export function byRole(master: unknown, minion: unknown): RoleDefault {
  return new RoleDefault(master, minion);
}

export interface OptionSpec {
  readonly name: string;
  readonly type: OptionType;
  /** The accepted values of an `enum` option. */
  readonly values?: readonly string[];
  /** `undefined` means "no default": the option is absent unless configured (Salt's autosign_file). */
  readonly default: unknown;
  readonly roles: readonly Role[];
  readonly unit?: OptionUnit;
  /** A filesystem path that gets root_dir prepended (Salt's prepend_root_dir list). */
  readonly path?: true;
  /**
   * A saltenv -> directories mapping (file_roots, pillar_roots): Salt leaves its absolute
   * directories where they are; a relative one is taken under root_dir.
   */
  readonly trees?: true;
  /** One sentence for docs/configuration.md. */
  readonly doc: string;
  /** Salt's default, present only when brine's default differs (the reason is in `doc`). */
  readonly saltDefault?: unknown;
  /** Salt has no such option. */
  readonly brineOnly?: true;
  /** `null` is accepted (Salt's `None or int`). */
  readonly nullable?: true;
  /** An int option that also accepts a numeric string, as Salt's `str or int` options do. */
  readonly numericString?: true;
  /** The empty string is refused (implied by `path`: an empty path would become root_dir itself). */
  readonly nonEmpty?: true;
  /** A YAML number is turned into its string form (Salt does this for `id: 1234`). */
  readonly numberAsString?: true;
  /** Filled in by the loader and never read from a file (config_dir). */
  readonly derived?: true;
  /** The smallest accepted value of an int or number option. */
  readonly min?: number;
  /** `min` itself is refused (the value must be strictly greater). */
  readonly minExclusive?: true;
}

/** The default for one role, or undefined when the option has none. */
export function defaultFor(spec: OptionSpec, role: Role): unknown {
  const d = spec.default instanceof RoleDefault ? spec.default[role] : spec.default;
  // Hand out copies so that no caller can change the table through a loaded config.
  return structuredClone(d);
}

/** "an integer", "a string or a list of strings" ... for error messages and docs. */
export function describeType(spec: OptionSpec): string {
  switch (spec.type) {
    case 'string':
      return 'a string';
    case 'int':
      // A digit string is also accepted for numericString options; the message stays simple.
      return 'an integer';
    case 'number':
      return 'a number';
    case 'bool':
      return 'a boolean (true or false)';
    case 'list':
      return 'a list';
    case 'string_or_list':
      return 'a string or a list of strings';
    case 'string_or_bool':
      return 'a string or a boolean';
    case 'map':
      return 'a mapping';
    case 'enum':
      return `one of ${(spec.values ?? []).join(', ')}${spec.nullable ? ' or null' : ''}`;
  }
}
