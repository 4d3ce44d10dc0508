// What the three init-script backends (debian_service, rh_service, linux_service) share: the
// interface service-module.ts calls, the runlevel as Salt's _runlevel reads it, directory
// listings as Salt's glob sees them, and the error for a function a provider does not have.

import { readdirSync } from 'node:fs';
import { BrineError } from '../util/errors.js';
import { runArgv, which } from './host-tools.js';

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
