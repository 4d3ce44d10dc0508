// Refuses, before anything is sent, a saltutil call whose jid argument is not a jid: the minion
// would refuse it too, but only after the job went to every target.

import { BrineError } from '../../util/errors.js';

const TAKES_JID: ReadonlySet<string> = new Set(['saltutil.find_job', 'saltutil.kill_job', 'saltutil.signal_job']);
const JID = /^\d{20}$/;

export function checkJidArgs(fun: string, arg: readonly unknown[], kwarg: Readonly<Record<string, unknown>>): void {
  if (!TAKES_JID.has(fun)) return;
  const given = Object.hasOwn(kwarg, 'jid') ? kwarg.jid : arg[0];
  if (given === undefined) return; // the minion reports the missing argument with the signature
  const text = typeof given === 'number' ? String(given) : given;
  if (typeof text !== 'string' || !JID.test(text)) {
    throw new BrineError('INVALID_JID', `${fun}: '${String(given).slice(0, 64)}' is not a jid (20 digits, as printed by brine run -v or brine jobs list); nothing was sent`);
  }
}
