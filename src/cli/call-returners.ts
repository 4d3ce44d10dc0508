// `brine call --return NAMES` (salt-call --return; Salt's caller reads it as the `return` option,
// so the minion config's `return` applies too): after the function, this process hands the
// return to each returner, as salt/cli/caller.py does. A returner that fails is reported on
// stderr with its code; the call's own output and exit status stay as they are.

import type { MinionOptions } from '../config/index.js';
import { saltArgs } from '../protocol/index.js';
import { buildReturner, returnerNames } from '../returners/index.js';
import { toBrineError } from '../util/errors.js';

export interface CalledReturn {
  id: string;
  jid: string;
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  ret: unknown;
  retcode: number;
  success: boolean;
}

/** The returners `--return` (or else the `return` option) names for this call. */
export function callReturners(opts: MinionOptions, flag: string | undefined): string[] {
  return returnerNames(flag ?? opts.return);
}

export async function sendCallReturn(opts: MinionOptions, names: readonly string[], call: CalledReturn): Promise<void> {
  const ctx = { opts: opts as unknown as Record<string, unknown>, id: call.id, program: 'brine-call' };
  const ret = { id: call.id, jid: call.jid, fun: call.fun, fun_args: saltArgs(call.arg, call.kwarg), return: call.ret, retcode: call.retcode, success: call.success };
  for (const name of names) {
    try {
      await buildReturner(name, ctx).returner(ret);
    } catch (err) {
      const e = toBrineError(err);
      process.stderr.write(`${e.code}: the return was not sent to returner ${name}: ${e.message}\n`);
    }
  }
}
