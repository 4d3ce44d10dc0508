// The `apache` module's Debian module switches (Salt's deb_apache): whether a module is enabled
// (its symlink in mods-enabled) and a2enmod / a2dismod. The configuration directory is
// APACHE_CONFDIR when set, as a2enmod itself reads it (Debian's multi-instance convention).

import { lstatSync } from 'node:fs';
import path from 'node:path';
import { BrineError } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import { checkName, runArgv, which } from './host-tools.js';
import type { ModuleFunction } from './types.js';

const MOD_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;

export const apacheConfdir = (): string => process.env.APACHE_CONFDIR || '/etc/apache2';

/** Salt's check_mod_enabled: mods-enabled/<mod>.load (or the .load/.conf named) is a symlink. */
export function modEnabled(mod: string): boolean {
  const file = mod.endsWith('.load') || mod.endsWith('.conf') ? mod : `${mod}.load`;
  try {
    return lstatSync(path.join(apacheConfdir(), 'mods-enabled', file)).isSymbolicLink();
  } catch {
    return false;
  }
}

function switchMod(fun: string, program: 'a2enmod' | 'a2dismod', mod: string): Promise<Record<string, unknown>> {
  checkName(fun, 'module', mod, MOD_NAME);
  if (!which(program)) {
    throw new BrineError('EXEC_FAILED', `${fun}: ${program} is not installed on this host; it comes with Apache's Debian packaging (apt-get install apache2)`);
  }
  return runArgv(fun, [program, '-q', mod]).then((r) => {
    const enable = program === 'a2enmod';
    // Salt's exact Status strings; 'Not found' for a2enmod's exit code 1 (a2dismod: 256, never seen).
    const status = r.retcode === 0 ? `Mod ${mod} ${enable ? 'enabled' : 'disabled'}` : enable && r.retcode === 1 ? `Mod ${mod} Not found` : r.retcode;
    return { Name: `Apache2 ${enable ? 'Enable' : 'Disable'} Mod`, Mod: mod, Status: status };
  });
}

export const apacheFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'apache.check_mod_enabled',
    doc: 'Whether an Apache module is enabled (Debian layout: a symlink in mods-enabled).',
    params: [{ name: 'mod', type: 'string', required: true, doc: "the module, e.g. 'rewrite' (or 'rewrite.load')" }],
    run: (_ctx, a) => modEnabled(a.named.mod),
  }),
  defineFunction({
    name: 'apache.a2enmod',
    doc: "Enable an Apache module with a2enmod; returns Salt's {Name, Mod, Status}.",
    params: [{ name: 'mod', type: 'string', required: true, doc: 'the module' }],
    run: (_ctx, a) => switchMod('apache.a2enmod', 'a2enmod', a.named.mod),
  }),
  defineFunction({
    name: 'apache.a2dismod',
    doc: "Disable an Apache module with a2dismod; returns Salt's {Name, Mod, Status}.",
    params: [{ name: 'mod', type: 'string', required: true, doc: 'the module' }],
    run: (_ctx, a) => switchMod('apache.a2dismod', 'a2dismod', a.named.mod),
  }),
];
