// The `salt` CLI's exit status (§5.6): 0 when every minion returned retcode 0, 1 when any minion
// failed or was reported as not returning, 2 when there was nothing at all to print; and the
// `salt-call` one (brine call).

import { isNoReturn } from './no-return.js';

export interface MinionOutcome {
  /** The minion's return value, or a no-return marker. */
  return: unknown;
  /** The retcode the minion reported; a map of retcodes counts as its largest value. */
  retcode?: number | Readonly<Record<string, number>>;
}

export const EXIT_OK = 0;
export const EXIT_MINION_FAILED = 1;
export const EXIT_NO_RETURN = 2;

export const MSG_MINION_FAILED = 'ERROR: Minions returned with non-zero exit code';
export const MSG_NO_RETURN = 'ERROR: No return received';

/** Salt's per-minion retcode: the reported one (max of a map), 1 for `False` or no return. */
export function minionRetcode(outcome: MinionOutcome): number {
  if (isNoReturn(outcome.return)) return 1;
  const rc = outcome.retcode;
  let code = 0;
  if (typeof rc === 'number') code = rc;
  else if (rc && typeof rc === 'object') code = Math.max(0, ...Object.values(rc).filter((v) => typeof v === 'number'));
  if (code === 0 && outcome.return === false) code = 1;
  return code;
}

/** The exit code and the stderr line Salt prints with it (none for success). */
export function cliExit(outcomes: ReadonlyMap<string, MinionOutcome> | Readonly<Record<string, MinionOutcome>>): { code: number; message?: string } {
  const all = outcomes instanceof Map ? [...outcomes.values()] : Object.values(outcomes);
  // Reported non-returning minions count as output (retcode 1), so only an empty result is 2;
  // with --hide-timeout the caller leaves them out and an all-silent job is then 2 as well.
  if (all.length === 0) return { code: EXIT_NO_RETURN, message: MSG_NO_RETURN };
  if (all.some((o) => minionRetcode(o) !== 0)) return { code: EXIT_MINION_FAILED, message: MSG_MINION_FAILED };
  return { code: EXIT_OK };
}

/**
 * salt-call's exit status (salt/cli/caller.py): the function's retcode with
 * --retcode-passthrough (2 for a failed state), otherwise 1 for any non-zero retcode, else 0.
 */
export function callExitCode(retcode: number, passthrough: boolean): number {
  if (passthrough) return retcode;
  return retcode === 0 ? EXIT_OK : EXIT_MINION_FAILED;
}
