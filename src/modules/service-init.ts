// What the three init-script backends (debian_service, rh_service, linux_service) share: the
// interface service-module.ts calls, script names, the runlevel as Salt's _runlevel reads it,
// directory listings as Salt's glob sees them, status by the script or by ps (status.pid), and
// the error for a function a provider does not have.

import { readdirSync } from 'node:fs';
import { BrineError } from '../util/errors.js';
import { globToRegExp, hasGlob } from './glob.js';
import { checkName, runArgv, which } from './host-tools.js';

export type InitVerb = 'start' | 'stop' | 'restart' | 'reload' | 'force-reload' | 'status';

/** One init-script service provider; every method answers as that provider's Salt module does. */
export interface InitService {
  /** Salt's module name, for messages. */
  readonly provider: string;
  run(fun: string, name: string, verb: InitVerb): Promise<boolean>;
  status(fun: string, name: string, sig?: string): Promise<unknown>;
  available(fun: string, name: string): Promise<boolean>;
  enabled(fun: string, name: string): Promise<boolean>;
  disabled(fun: string, name: string): Promise<boolean>;
  enable(fun: string, name: string): Promise<boolean>;
  disable(fun: string, name: string): Promise<boolean>;
  getAll(fun: string): Promise<string[]>;
  getEnabled(fun: string): Promise<string[]>;
  getDisabled(fun: string): Promise<string[]>;
}

/** glob('*') of a directory: dot files left out as Python's glob does, nothing when it is missing. */
export function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => !f.startsWith('.'));
  } catch {
    return [];
  }
}

/**
 * The current runlevel as Salt's _runlevel reads it from `runlevel`; in a container without an
 * init it prints "unknown", which Salt takes as the family's default (Debian 2, Red Hat 3).
 */
export async function currentRunlevel(fun: string, fallback: string): Promise<string> {
  // without the program (systemd-sysv or sysvinit-core provide it), the default as well
  if (!which('runlevel')) return fallback;
  const r = await runArgv(fun, ['runlevel']);
  const level = r.stdout.trim().split(/\s+/)[1];
  return r.stdout.includes('unknown') || level === undefined ? fallback : level;
}

/** A function Salt's provider for this host does not define (linux_service has no enable, ...). */
export function notProvided(fun: string, provider: string): BrineError {
  return new BrineError(
    'SERVICE_FUNCTION_UNAVAILABLE',
    `'${fun}' is not available: this host's service provider (Salt's ${provider}: /etc/init.d scripts without a boot-link tool) cannot tell or change what starts at boot; manage the rc links with file.symlink or cmd.run, or leave 'enable' out of the service state`,
    { details: { provider } },
  );
}

/** Init script names: what Debian's policy allows in /etc/init.d (and what `service` accepts). */
const SCRIPT = /^[A-Za-z0-9_.@+:-]+$/;
/** A glob for service.status: the script grammar plus the fnmatch characters. */
const SCRIPT_GLOB = /^[A-Za-z0-9_.@+:*?[\]!-]+$/;

export function scriptName(fun: string, name: string, allowGlob = false): string {
  return checkName(fun, 'service name', name, allowGlob ? SCRIPT_GLOB : SCRIPT);
}

/**
 * service.status of debian_service and rh_service: the script's status verb (true when it exits
 * 0); a glob maps every matching service; `sig` looks in ps instead (Salt's status.pid).
 */
export async function scriptStatus(svc: InitService, fun: string, name: string, sig?: string): Promise<boolean | Record<string, boolean>> {
  if (sig) return (await pidsMatching(fun, sig)).length > 0;
  if (!hasGlob(name)) return svc.run(fun, name, 'status');
  scriptName(fun, name, true);
  const re = globToRegExp(name);
  const out: Record<string, boolean> = {};
  for (const s of (await svc.getAll(fun)).filter((n) => re.test(n))) out[s] = await svc.run(fun, s, 'status');
  return out;
}

/**
 * Salt's status.pid: the pids of the processes whose command line matches `sig` (a regular
 * expression in Salt; a plain substring when it is not a valid JavaScript one), leaving out ps
 * itself and this process as Salt leaves out the minion.
 */
export async function pidsMatching(fun: string, sig: string): Promise<number[]> {
  const r = await runArgv(fun, ['ps', '-eo', 'pid=,args=']);
  let test: (line: string) => boolean;
  try {
    const re = new RegExp(sig);
    test = (l) => re.test(l);
  } catch {
    test = (l) => l.includes(sig);
  }
  const pids: number[] = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (m?.[1] && m[2] !== undefined && Number(m[1]) !== r.pid && Number(m[1]) !== process.pid && test(m[2])) pids.push(Number(m[1]));
  }
  return pids;
}
