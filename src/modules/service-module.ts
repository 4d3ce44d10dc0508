// The `service` module: start, stop, restart, reload, force_reload, status, enable, disable,
// enabled, disabled, available, missing, get_all, get_enabled, get_disabled, offline. The host
// picks the backend as Salt's loader does (service-backend.ts): systemd (`systemctl` with an
// argv array) when booted with it; without it the init scripts, driven as Salt's debian_service
// (service-debian.ts), rh_service (service-rh.ts) or linux_service (service-sysv.ts) drives
// them; on any other host every function returns a coded error that says what to do.

import { existsSync } from 'node:fs';
import { BrineError } from '../util/errors.js';
import { globToRegExp, hasGlob } from './glob.js';
import { createMaskFunctions } from './service-mask.js';
import { selectServiceBackend, systemdOffline } from './service-backend.js';
import { DebianService } from './service-debian.js';
import type { InitService } from './service-init.js';
import { RhService } from './service-rh.js';
import { SysvService } from './service-sysv.js';
import { checkName, runArgv, runChecked, tail, which } from './host-tools.js';
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
  /** Where /etc/init.d and /etc/rc?.d are read without systemd ('/' by default; a temp dir in tests). */
  initRoot?: string;
  /** The program whose presence on PATH makes a host without a booted systemd "offline" (Salt's test); 'systemctl'. */
  systemctl?: string;
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

function unsupported(fun: string, marker: string, os: string, reason: string): BrineError {
  return new BrineError(
    'SERVICE_MANAGER_UNSUPPORTED',
    `${fun}: systemd is not running on this host (${marker} is missing) and brine has no init-script provider for it (os grain '${os}': ${reason}); manage the process with cmd.run (its init script or supervisor), or run the minion on a host booted with systemd`,
    { details: { systemd: false, os } },
  );
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

/** systemd's list of service units in one unit-file state (get_enabled, get_disabled), or all of them. */
async function unitFiles(fun: string, state?: 'enabled' | 'disabled'): Promise<string[]> {
  const argv = ['systemctl', 'list-unit-files', '--type=service', '--no-legend', '--no-pager', ...(state ? [`--state=${state}`] : [])];
  const r = await runChecked(fun, argv);
  const names = r.stdout.split('\n').map((l) => (l.trim().split(/\s+/)[0] ?? '').replace(/\.service$/, ''));
  return [...new Set(names.filter((n) => n !== '' && !n.endsWith('@')))].sort();
}

/** Salt's systemd_service.systemctl_reload: its error carries systemctl's output. */
async function daemonReload(fun: string): Promise<boolean> {
  const r = await runArgv(fun, ['systemctl', '--system', 'daemon-reload']);
  if (r.retcode !== 0) throw new BrineError('EXEC_FAILED', `${fun}: Problem performing systemctl daemon-reload: ${tail(r.stdout) || tail(r.stderr)}`);
  return true;
}

const NAME = defineParam({ name: 'name', type: 'string', required: true, doc: "service name, e.g. 'nginx' (a systemd unit or an /etc/init.d script)" });
const NO_BLOCK = defineParam({ name: 'no_block', type: 'bool', default: false, doc: 'do not wait for the job to finish (systemctl --no-block; systemd only)' });
const SIG = defineParam({ name: 'sig', type: 'string', doc: "without systemd: a regular expression looked for in ps instead of asking the init script (Salt's status.pid)" });
/** The arguments of the functions that act on one unit (start, stop, enable ...). */
type UnitArgs = TypedArgs<readonly [typeof NAME, typeof NO_BLOCK]>;

/** One function's body for systemd and one for the init-script providers; the call picks the host's backend each time. */
interface Bodies<Ps extends readonly ParamSpec[]> {
  systemd(a: TypedArgs<Ps>): Promise<unknown>;
  init(d: InitService, a: TypedArgs<Ps>): Promise<unknown>;
}

export function createServiceFunctions(opts: ServiceOptions = {}): ModuleFunction[] {
  const marker = opts.systemdMarker ?? SYSTEMD_MARKER;
  const debian = new DebianService({ root: opts.initRoot });
  const rh = new RhService({ root: opts.initRoot });
  const fn = <const Ps extends readonly ParamSpec[]>(name: string, doc: string, params: Ps, bodies: Bodies<Ps>, kwargs = false): ModuleFunction =>
    defineFunction({
      name,
      doc,
      params,
      // Salt's debian_service enable/disable/enabled take **kwargs (the states pass theirs on)
      ...(kwargs ? { kwargs: true } : {}),
      run: (ctx: ExecContext, a: TypedArgs<Ps>) => {
        const grains = ctx.grains();
        const backend = selectServiceBackend({ grains, booted: existsSync(marker) });
        if (backend.kind === 'systemd') return bodies.systemd(a);
        if (backend.kind === 'debian') return bodies.init(debian, a);
        if (backend.kind === 'rh') return bodies.init(rh, a);
        if (backend.kind === 'sysv') return bodies.init(new SysvService({ root: opts.initRoot, os: () => String(grains.os ?? '') }), a);
        throw unsupported(name, marker, backend.os, backend.reason);
      },
    });
  const verb = (fun: string, systemctlVerb: string, initVerb: 'start' | 'stop' | 'restart' | 'reload' | 'force-reload', doc: string): ModuleFunction =>
    fn(fun, doc, [NAME, NO_BLOCK], { systemd: (a) => action(fun, systemctlVerb, a), init: (d, a) => d.run(fun, a.named.name, initVerb) });
  return [
    verb('service.start', 'start', 'start', "Start a service; true on success (systemd: an error with systemctl's message otherwise; init scripts: false)."),
    verb('service.stop', 'stop', 'stop', 'Stop a service; true on success.'),
    verb('service.restart', 'restart', 'restart', 'Restart a service; true on success.'),
    verb('service.reload', 'reload', 'reload', 'Reload a service’s configuration; true on success.'),
    verb('service.force_reload', 'force-reload', 'force-reload', 'Force-reload a service (reload, or restart where it cannot reload); true on success.'),
    fn('service.status', 'True if the service is running; a glob returns {service: running} for each match.', [{ ...NAME, doc: 'service name or glob' }, SIG], {
      systemd: (a) => status('service.status', a.named.name),
      init: (d, a) => d.status('service.status', a.named.name, a.named.sig),
    }),
    fn(
      'service.enable',
      'Enable a service at boot; true if it succeeded.',
      [NAME, NO_BLOCK],
      { systemd: (a) => toggle('service.enable', 'enable', a), init: (d, a) => d.enable('service.enable', a.named.name) },
      true,
    ),
    fn(
      'service.disable',
      'Disable a service at boot; true if it succeeded.',
      [NAME, NO_BLOCK],
      { systemd: (a) => toggle('service.disable', 'disable', a), init: (d, a) => d.disable('service.disable', a.named.name) },
      true,
    ),
    fn(
      'service.enabled',
      'True if the service starts at boot (systemctl is-enabled; without systemd an S link in /etc/rc<level>.d).',
      [NAME],
      { systemd: (a) => isEnabled('service.enabled', a.named.name), init: (d, a) => d.enabled('service.enabled', a.named.name) },
      true,
    ),
    fn('service.disabled', 'True if the service does not start at boot.', [NAME], {
      systemd: async (a) => !(await isEnabled('service.disabled', a.named.name)),
      init: (d, a) => d.disabled('service.disabled', a.named.name),
    }),
    fn('service.available', 'True if the service exists (a systemd unit, or an /etc/init.d script without systemd).', [NAME], {
      systemd: (a) => available('service.available', unitName('service.available', a.named.name)),
      init: (d, a) => d.available('service.available', a.named.name),
    }),
    fn('service.missing', 'The inverse of service.available.', [NAME], {
      systemd: async (a) => !(await available('service.missing', unitName('service.missing', a.named.name))),
      init: async (d, a) => !(await d.available('service.missing', a.named.name)),
    }),
    fn('service.get_all', 'Every service name, sorted.', [], { systemd: () => unitFiles('service.get_all'), init: (d) => d.getAll('service.get_all') }),
    fn('service.get_enabled', 'The services that start at boot, sorted.', [], {
      systemd: () => unitFiles('service.get_enabled', 'enabled'),
      init: (d) => d.getEnabled('service.get_enabled'),
    }),
    fn('service.get_disabled', 'The services that do not start at boot, sorted.', [], {
      systemd: () => unitFiles('service.get_disabled', 'disabled'),
      init: (d) => d.getDisabled('service.get_disabled'),
    }),
    fn('service.systemctl_reload', "Reload systemd's unit files (systemctl --system daemon-reload); true on success.", [], {
      systemd: () => daemonReload('service.systemctl_reload'),
      // Salt's init-script providers have no systemctl_reload: there the function is unavailable
      init: () => {
        requireSystemd('service.systemctl_reload', marker);
        return Promise.resolve(true);
      },
    }),
    defineFunction({
      name: 'service.offline',
      doc: "True when systemd is installed but not running (Salt's offline mode: the service states then change nothing).",
      params: [],
      run: (ctx) => systemdOffline({ grains: ctx.grains(), booted: existsSync(marker), systemctlInstalled: which(opts.systemctl ?? 'systemctl') !== undefined }),
    }),
    ...createMaskFunctions({ root: opts.unitRoot, requireSystemd: (fun) => requireSystemd(fun, marker) }),
  ];
}

export const serviceFunctions: readonly ModuleFunction[] = createServiceFunctions();
