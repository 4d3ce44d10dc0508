// What the states for outside services (docker, databases, firewalls, SELinux, ifupdown) share:
// finding the program they drive, and the answer of a state whose service this minion cannot
// reach. Such a state still answers test=True with Salt's would-be comment and changes (what
// Salt reports when a change is needed, since brine cannot look at the service), and fails at
// run time with a reason that names what the operator must install or start.

import { dockerReachable as dockerDaemon } from '../../../modules/docker-daemon.js';
import { which } from '../../../modules/host-tools.js';
import type { StateContext, StateResult } from '../../types.js';
import { stateResult } from '../state-result.js';

/** Why a state cannot act here: a sentence the operator can act on. */
export interface Unreachable {
  reason: string;
}

/** The program's absolute path, or why it is missing (with the Debian package that provides it). */
export function findProgram(program: string, debianPackage: string): { path: string } | Unreachable {
  const path = which(program);
  if (path !== undefined) return { path };
  return { reason: `${program} is not installed on this minion (not on PATH: ${process.env.PATH ?? ''}); install the ${debianPackage} package` };
}

export function isUnreachable(v: object): v is Unreachable {
  return 'reason' in v;
}

/** The docker daemon as the docker CLI reaches it (modules/docker-daemon.ts). */
export function dockerReachable(ctx: StateContext): Promise<{ path: string } | Unreachable> {
  return dockerDaemon(ctx.exec.signal);
}

/** Salt's test-mode answer when a change is needed: result None, Salt's comment and would-be changes. */
export function wouldChange(name: string, comment: string, changes: Record<string, unknown> = {}): StateResult {
  return stateResult(name, null, comment, changes);
}

/** The run-time failure of a state whose service is out of reach: what to install or start. */
export function cannotAct(ctx: StateContext, name: string, why: Unreachable): StateResult {
  return stateResult(name, false, `${ctx.low.state}.${ctx.low.fun} cannot act on this minion: ${why.reason}`);
}
