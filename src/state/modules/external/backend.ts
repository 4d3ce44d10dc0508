// What the states for outside services (docker, databases, firewalls, SELinux, ifupdown) share:
// finding the program they drive, and the answer of a state whose service this minion cannot
// reach. Such a state still answers test=True with Salt's would-be comment and changes (what
// Salt reports when a change is needed, since brine cannot look at the service), and fails at
// run time with a reason that names what the operator must install or start.

import { runArgv, which } from '../../../modules/host-tools.js';
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

/**
 * The docker daemon as the docker CLI reaches it (DOCKER_HOST or the default socket). The CLI
 * is asked rather than the socket opened, so DOCKER_HOST, contexts and TLS settings apply as
 * they do for the operator's own `docker` commands.
 */
export async function dockerReachable(ctx: StateContext): Promise<{ path: string } | Unreachable> {
  const prog = findProgram('docker', 'docker.io');
  if (isUnreachable(prog)) return prog;
  const r = await runArgv('docker', [prog.path, 'version', '--format', '{{.Server.Version}}'], { signal: ctx.exec.signal, timeoutMs: 15_000 });
  if (r.retcode === 0 && r.stdout.trim() !== '') return prog;
  const why = (r.stderr || r.stdout).trim().split('\n').pop() ?? '';
  return {
    reason: `docker is not running: start the docker daemon (systemctl start docker) or point DOCKER_HOST at a running one${why ? ` (docker said: ${why})` : ''}`,
  };
}

/** Salt's test-mode answer when a change is needed: result None, Salt's comment and would-be changes. */
export function wouldChange(name: string, comment: string, changes: Record<string, unknown> = {}): StateResult {
  return stateResult(name, null, comment, changes);
}

/** The run-time failure of a state whose service is out of reach: what to install or start. */
export function cannotAct(ctx: StateContext, name: string, why: Unreachable): StateResult {
  return stateResult(name, false, `${ctx.low.state}.${ctx.low.fun} cannot act on this minion: ${why.reason}`);
}
