// service.masked / service.mask / service.unmask for systemd. Whether a unit is masked is read
// from its unit link, as Salt's systemd_service.masked does (a link to /dev/null in /etc, or /run
// for a runtime mask), so it answers on any host; masking and unmasking run systemctl, which needs
// systemd running unless `root` names an image to act on offline (systemctl --root, as Salt's).

import { readlinkSync } from 'node:fs';
import path from 'node:path';
import { BrineError } from '../util/errors.js';
import { defineFunction, defineParam } from './define-function.js';
import { checkName, runArgv, tail } from './host-tools.js';
import type { ModuleFunction } from './types.js';

export interface MaskOptions {
  /** Where the unit directories live (`<root>/etc/systemd/system`, `<root>/run/systemd/system`); '/' by default. */
  root?: string;
  /** Called before systemctl runs: throws when systemd is not the running init. */
  requireSystemd(fun: string): void;
}

const UNIT = /^[A-Za-z0-9:_.@\\-]+$/;
/** Salt's _canonical_unit_name: a name without a unit type is a service. */
const canonical = (name: string): string => (/\.(service|socket|device|mount|automount|swap|target|path|timer|slice|scope)$/.test(name) ? name : `${name}.service`);

/** True when the unit's link in /etc (or /run with runtime) points at /dev/null. */
export function unitMasked(name: string, runtime: boolean, root = '/'): boolean {
  const link = path.join(root, runtime ? 'run' : 'etc', 'systemd', 'system', canonical(name));
  try {
    return readlinkSync(link) === '/dev/null';
  } catch {
    return false;
  }
}

const NAME = defineParam({ name: 'name', type: 'string', required: true, doc: "unit name, e.g. 'nginx' or 'nginx.service'" });
const RUNTIME = defineParam({ name: 'runtime', type: 'bool', default: false, doc: 'the runtime mask (/run, gone at reboot) instead of the lasting one (/etc)' });
const ROOT = defineParam({ name: 'root', type: 'string', doc: 'act on the unit files of this directory tree, offline (systemctl --root)' });

export function createMaskFunctions(opts: MaskOptions): ModuleFunction[] {
  const change = (fun: string, verb: 'mask' | 'unmask') =>
    defineFunction({
      name: fun,
      doc: verb === 'mask' ? 'Mask a unit (systemctl mask, link to /dev/null): it cannot be started. True on success.' : 'Unmask a unit (systemctl unmask). True on success.',
      params: [NAME, RUNTIME, ROOT],
      run: async (_ctx, a) => {
        checkName(fun, 'service name', a.named.name, UNIT);
        const root = a.named.root ?? opts.root;
        const offline = root !== undefined && path.resolve(root) !== '/';
        if (!offline) opts.requireSystemd(fun);
        const argv = ['systemctl', verb, ...(a.named.runtime ? ['--runtime'] : []), ...(offline ? [`--root=${root}`] : []), '--', a.named.name];
        const r = await runArgv(fun, argv);
        // Salt raises CommandExecutionError "Failed to mask service 'x'" with systemctl's output
        if (r.retcode !== 0) throw new BrineError('EXEC_FAILED', `Failed to ${verb} service '${a.named.name}': ${tail(r.stderr) || tail(r.stdout)}`);
        return true;
      },
    });
  return [
    defineFunction({
      name: 'service.masked',
      doc: 'True if the unit is masked (its unit link points at /dev/null); readable without systemd running.',
      params: [NAME, RUNTIME, ROOT],
      run: async (_ctx, a) => {
        checkName('service.masked', 'service name', a.named.name, UNIT);
        return unitMasked(a.named.name, a.named.runtime, a.named.root ?? opts.root);
      },
    }),
    change('service.mask', 'mask'),
    change('service.unmask', 'unmask'),
  ];
}
