// The shape of one catalogue entry, shared by the per-area code tables.

export interface ErrorSpec {
  /** What went wrong, in one line. */
  readonly meaning: string;
  /** What the operator should do next. */
  readonly fix: string;
  /** Process exit code when this error ends a command (Salt's codes where they exist). */
  readonly exit: number;
}

export const spec = (meaning: string, fix: string, exit = 1): ErrorSpec => ({ meaning, fix, exit });
