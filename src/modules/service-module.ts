// The `service` module for systemd: start, stop, restart, reload, status, enable, disable,
// enabled, disabled, available,
// each running `systemctl` with an argv array. Where systemd is not the running init, every
// function returns a coded error that says so instead of a confusing systemctl failure.

import { existsSync } from 'node:fs';
import { BrineError } from '../util/errors.js';
import { globToRegExp, hasGlob } from './glob.js';
import { createMaskFunctions } from './service-mask.js';
import { checkName, runArgv, runChecked, tail } from './host-tools.js';
import type { ExecContext, ModuleFunction, ParamSpec } from './types.js';
import { defineFunction, defineParam, type TypedArgs } from './define-function.js';

// systemd's own test for "booted with systemd" (sd_booted), which Salt's booted() also uses.
const SYSTEMD_MARKER = '/run/systemd/system';
// Unit names: letters, digits, ':', '_', '.', '@', '-' and '\' escapes; globs for status.
const UNIT = /^[A-Za-z0-9:_.@\\*?[\]-]+$/;

export interface ServiceOptions {
  /** The directory whose presence means systemd is running (overridable for tests). */
  systemdMarker?: string;
  /** Where the unit directories are read for service.masked ('/' by default; a temp dir in tests). */
  unitRoot?: string;
}

function requireSystemd(fun: string, marker: string): void {
  if (!existsSync(marker)) {
    throw new BrineError(
      'EXEC_FAILED',
      `${fun}: systemd is not running on this host (${marker} is missing; the init is something else, e.g. a container's entrypoint), so services cannot be managed with systemctl; manage the process with cmd.run (its init script or supervisor), or run the minion on a host booted with systemd`,
      { details: { systemd: false } },
    );
  }
}

function unitName(fun: string, name: string, allowGlob = false): string {
  checkName(fun, 'service name', name, UNIT);
  if (!allowGlob && hasGlob(name)) throw new BrineError('BAD_ARGUMENTS', `${fun}: '${name}' is a glob; give one service name`);
  return name;
}

/** True when systemd knows the unit (LoadState is not not-found). */
async function available(fun: string, name: string): Promise<boolean> {
  const r = await runArgv(fun, ['systemctl', 'show', '--property=LoadState', '--', name]);
  if (r.retcode !== 0) throw new BrineError('EXEC_FAILED', `${fun}: systemctl show failed for '${name}': ${tail(r.stderr) || tail(r.stdout)}`);
  const state = /^LoadState=(.*)$/m.exec(r.stdout)?.[1]?.trim();
  return state !== undefined && state !== 'not-found';
}

/** start/stop/restart: true on success, else EXEC_FAILED carrying systemctl's message (Salt raises too). */
async function action(fun: string, verb: string, a: UnitArgs): Promise<boolean> {
  const name = unitName(fun, a.named.name);
  if (!(await available(fun, name))) throw new BrineError('EXEC_FAILED', `${fun}: no such service '${name}' on this host; list them with cmd.run 'systemctl list-unit-files --type=service'`);
  const argv = ['systemctl', verb];
  if (a.named.no_block) argv.push('--no-block');
  argv.push('--', name);
  await runChecked(fun, argv);
  return true;
}

async function status(fun: string, name: string): Promise<boolean | Record<string, boolean>> {
  unitName(fun, name, true);
  const isActive = async (unit: string): Promise<boolean> => (await runArgv(fun, ['systemctl', 'is-active', '--quiet', '--', unit])).retcode === 0;
  if (!hasGlob(name)) return isActive(name);
  // A glob returns {unit: active} for every matching service, as Salt does.
  const r = await runChecked(fun, ['systemctl', 'list-unit-files', '--type=service', '--no-legend', '--no-pager']);
  const re = globToRegExp(name);
  const units = r.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter((u) => u !== '' && (re.test(u) || re.test(u.replace(/\.service$/, ''))));
  const out = new Map<string, boolean>();
  for (const u of units.sort()) out.set(u.replace(/\.service$/, ''), await isActive(u));
  return Object.fromEntries(out);
}

async function toggle(fun: string, verb: 'enable' | 'disable', a: UnitArgs): Promise<boolean> {
  const name = unitName(fun, a.named.name);
  const argv = ['systemctl', verb];
  if (a.named.no_block) argv.push('--no-block');
  argv.push('--', name);
  // Salt returns whether systemctl succeeded rather than raising.
  return (await runArgv(fun, argv)).retcode === 0;
}

/** systemd's "enabled" (and, as Salt counts it, a static unit pulled in by another is not). */
async function isEnabled(fun: string, name: string): Promise<boolean> {
  const r = await runArgv(fun, ['systemctl', 'is-enabled', '--', unitName(fun, name)]);
  return r.retcode === 0 && /^(enabled|enabled-runtime|alias)$/m.test(r.stdout.trim());
}

const NAME = defineParam({ name: 'name', type: 'string', required: true, doc: "unit name, e.g. 'nginx' or 'nginx.service'" });
const NO_BLOCK = defineParam({ name: 'no_block', type: 'bool', default: false, doc: 'do not wait for the job to finish (systemctl --no-block)' });
/** The arguments of the functions that act on one unit (start, stop, enable ...). */
type UnitArgs = TypedArgs<readonly [typeof NAME, typeof NO_BLOCK]>;

export function createServiceFunctions(opts: ServiceOptions = {}): ModuleFunction[] {
  const marker = opts.systemdMarker ?? SYSTEMD_MARKER;
  const fn = <const Ps extends readonly ParamSpec[]>(name: string, doc: string, params: Ps, body: (a: TypedArgs<Ps>) => Promise<unknown>): ModuleFunction =>
    defineFunction({
      name,
      doc,
      params,
      run: (_ctx: ExecContext, a: TypedArgs<Ps>) => {
        requireSystemd(name, marker);
        return body(a);
      },
    });
  return [
    fn('service.start', "Start a service; true on success, an error with systemctl's message otherwise.", [NAME, NO_BLOCK], (a) => action('service.start', 'start', a)),
    fn('service.stop', 'Stop a service; true on success.', [NAME, NO_BLOCK], (a) => action('service.stop', 'stop', a)),
    fn('service.restart', 'Restart a service; true on success.', [NAME, NO_BLOCK], (a) => action('service.restart', 'restart', a)),
    fn('service.reload', 'Reload a service’s configuration (systemctl reload); true on success.', [NAME, NO_BLOCK], (a) => action('service.reload', 'reload', a)),
    fn(
      'service.status',
      'True if the service is active; a glob returns {service: active} for each match.',
      [
        { ...NAME, doc: 'unit name or glob' },
        { name: 'sig', type: 'string', doc: 'accepted for compatibility; systemd knows the state' },
      ],
      (a) => status('service.status', a.named.name),
    ),
    fn('service.enable', 'Enable a service at boot; true if systemctl succeeded.', [NAME, NO_BLOCK], (a) => toggle('service.enable', 'enable', a)),
    fn('service.disable', 'Disable a service at boot; true if systemctl succeeded.', [NAME, NO_BLOCK], (a) => toggle('service.disable', 'disable', a)),
    fn('service.enabled', 'True if the service starts at boot (systemctl is-enabled).', [NAME], (a) => isEnabled('service.enabled', a.named.name)),
    fn('service.disabled', 'True if the service does not start at boot.', [NAME], async (a) => !(await isEnabled('service.disabled', a.named.name))),
    fn('service.available', 'True if systemd knows the service.', [NAME], (a) => available('service.available', unitName('service.available', a.named.name))),
    ...createMaskFunctions({ root: opts.unitRoot, requireSystemd: (fun) => requireSystemd(fun, marker) }),
  ];
}

export const serviceFunctions: readonly ModuleFunction[] = createServiceFunctions();
