// service.running, service.dead, service.enabled, service.disabled, and their mod_watch
// (restart, or reload with `reload: True`, or stop+start with `full_restart: True`), through the
// service execution module; changes are Salt's {name: True/False}.

import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { callFn, stateResult } from './state-result.js';

async function probe(ctx: StateContext, fun: string, name: string): Promise<boolean | string> {
  const r = await callFn<boolean>(ctx, fun, [name]);
  return r.ok ? r.value === true : r.message;
}

/**
 * Salt's _enable/_disable: bring the boot setting in line and say so, after the run state is
 * settled. `state` words the comment ('running', 'dead' or 'in the desired state').
 */
async function toggleBoot(ctx: StateContext, ret: StateResult, enable: boolean, state: string): Promise<StateResult> {
  const name = ret.name;
  const verb = enable ? 'enabled' : 'disabled';
  const current = await probe(ctx, 'service.enabled', name);
  if (typeof current === 'string') return { ...ret, result: false, comment: current };
  // As in Salt, the boot setting's comment replaces the run state's one.
  if (current === enable) return { ...ret, comment: `Service ${name} is already ${verb}, and is ${state}` };
  if (ctx.test) return { ...ret, result: ret.result === false ? false : null, comment: `Service ${name} set to be ${verb}`, changes: { ...ret.changes, [name]: true } };
  const r = await callFn<boolean>(ctx, enable ? 'service.enable' : 'service.disable', [name]);
  if (!r.ok || r.value !== true) {
    return { ...ret, result: false, comment: `Failed when setting service ${name} to ${enable ? 'start' : 'not start'} at boot, and is ${state}${r.ok ? '' : `: ${r.message}`}` };
  }
  return { ...ret, changes: { ...ret.changes, [name]: true }, comment: `Service ${name} has been ${verb}, and is ${state}` };
}

const NAME = { name: 'name', type: 'string', required: true, doc: "the service (unit) name, e.g. 'nginx'" } as const;
const INIT_DELAY = { name: 'init_delay', type: 'number', doc: 'seconds to wait after starting before checking that the service runs' } as const;
const ENABLE = { name: 'enable', type: 'bool', doc: 'also start (True) or do not start (False) at boot; unset leaves it alone' } as const;
const WATCH = [
  { name: 'reload', type: 'bool', default: false, doc: 'on a watch, reload instead of restart' },
  { name: 'full_restart', type: 'bool', default: false, doc: 'on a watch, stop then start instead of restart' },
  { name: 'force', type: 'bool', default: false, doc: 'accepted for Salt compatibility (force-reload on a watch; brine reloads)' },
  { name: 'sig', type: 'string', doc: 'accepted for Salt compatibility (a process to look for instead of asking the service manager; brine always asks)' },
] as const;

async function available(ctx: StateContext, name: string): Promise<StateResult | undefined> {
  const ok = await probe(ctx, 'service.available', name);
  if (typeof ok === 'string') return stateResult(name, false, ok);
  if (!ok) return stateResult(name, false, `The named service ${name} is not available`);
  return undefined;
}

/** Waits `seconds` (init_delay), ending early when the job is cancelled. */
function delay(ctx: StateContext, seconds: number | undefined): Promise<void> {
  if (!seconds || seconds <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, seconds * 1000);
    function done(): void {
      clearTimeout(timer);
      ctx.exec.signal.removeEventListener('abort', done);
      resolve();
    }
    ctx.exec.signal.addEventListener('abort', done, { once: true });
  });
}

const delayed = (r: StateResult, seconds: number | undefined): StateResult => (seconds && seconds > 0 ? { ...r, comment: `${r.comment}\nDelayed return for ${seconds} seconds` } : r);

async function running(ctx: StateContext, name: string, enable: boolean | undefined, initDelay?: number): Promise<StateResult> {
  const missing = await available(ctx, name);
  if (missing) return missing;
  const before = await probe(ctx, 'service.status', name);
  if (typeof before === 'string') return stateResult(name, false, before);
  let ret: StateResult;
  if (before) {
    ret = stateResult(name, true, `The service ${name} is already running`);
  } else if (ctx.test) {
    return stateResult(name, null, `Service ${name} is set to start`, { [name]: true });
  } else {
    const start = await callFn(ctx, 'service.start', [name]);
    // A service that dies right after starting shows only after init_delay.
    if (start.ok) await delay(ctx, initDelay);
    const after = await probe(ctx, 'service.status', name);
    if (!start.ok || after !== true) return delayed(stateResult(name, false, `Service ${name} failed to start${start.ok ? '' : `: ${start.message}`}`), start.ok ? initDelay : undefined);
    ret = stateResult(name, true, `Started service ${name}`, { [name]: true });
  }
  const out = enable === undefined ? ret : await toggleBoot(ctx, ret, enable, 'running');
  return before ? out : delayed(out, initDelay);
}

async function dead(ctx: StateContext, name: string, enable: boolean | undefined): Promise<StateResult> {
  const ok = await probe(ctx, 'service.available', name);
  if (typeof ok === 'string') return stateResult(name, false, ok);
  // A service that does not exist is certainly not running (Salt says so and succeeds).
  if (!ok) return stateResult(name, true, `The named service ${name} is not available`);
  const before = await probe(ctx, 'service.status', name);
  if (typeof before === 'string') return stateResult(name, false, before);
  let ret: StateResult;
  if (!before) {
    ret = stateResult(name, true, `The service ${name} is already dead`);
  } else if (ctx.test) {
    return stateResult(name, null, `Service ${name} is set to be killed`, { [name]: true });
  } else {
    const stop = await callFn(ctx, 'service.stop', [name]);
    const after = await probe(ctx, 'service.status', name);
    if (!stop.ok || after !== false) return stateResult(name, false, `Service ${name} failed to die${stop.ok ? '' : `: ${stop.message}`}`);
    ret = stateResult(name, true, `Service ${name} was killed`, { [name]: true });
  }
  return enable === undefined ? ret : toggleBoot(ctx, ret, enable, 'dead');
}

/** Salt's service.mod_watch: restart (or reload / full restart) a running service, start a stopped one. */
async function modWatch(ctx: StateContext, name: string, sfun: 'running' | 'dead', opts: { reload: boolean; full_restart: boolean; init_delay?: number }): Promise<StateResult> {
  // A watched change never starts a service that should be dead.
  if (sfun === 'dead') return dead(ctx, name, undefined);
  const missing = await available(ctx, name);
  if (missing) return missing;
  const status = await probe(ctx, 'service.status', name);
  if (typeof status === 'string') return stateResult(name, false, status);
  const [verb, past] = !status
    ? (['start', 'started'] as const)
    : opts.reload
      ? (['reload', 'reloaded'] as const)
      : opts.full_restart
        ? (['full restart', 'fully restarted'] as const)
        : (['restart', 'restarted'] as const);
  if (ctx.test) return stateResult(name, null, `Service is set to be ${past}`, { [name]: true });
  const steps = verb === 'full restart' ? ['service.stop', 'service.start'] : [`service.${verb}`];
  for (const fun of steps) {
    const r = await callFn(ctx, fun, [name]);
    if (!r.ok) return stateResult(name, false, `Failed to ${verb} service ${name}: ${r.message}`);
  }
  // Salt's mod_watch sleeps init_delay after the restart or reload.
  await delay(ctx, opts.init_delay);
  return stateResult(name, true, `Service ${past}`, { [name]: true });
}

async function bootOnly(ctx: StateContext, name: string, enable: boolean): Promise<StateResult> {
  const missing = await available(ctx, name);
  if (missing) return missing;
  return toggleBoot(ctx, stateResult(name, true, ''), enable, 'in the desired state');
}

export const serviceStates: readonly StateFunction[] = [
  defineState({
    name: 'service.running',
    // Salt's function takes **kwargs: arguments it does not know (restart: True, no_block, ...) are ignored.
    kwargs: true,
    doc: 'Make sure a service is running (and enabled at boot with enable: True); restarted when a watched state changes.',
    params: [NAME, ENABLE, INIT_DELAY, ...WATCH],
    example:
      '/etc/nginx/nginx.conf:\n  file.managed:\n    - source: salt://nginx/nginx.conf\n\nnginx:\n  service.running:\n    - enable: True\n    - reload: True\n    - watch:\n      - file: /etc/nginx/nginx.conf',
    run: (ctx, a) => running(ctx, a.named.name, a.named.enable, a.named.init_delay),
    modWatch: (ctx, a) => modWatch(ctx, a.named.name, 'running', a.named),
  }),
  defineState({
    name: 'service.dead',
    // Salt's function takes **kwargs: arguments it does not know (restart: True, no_block, ...) are ignored.
    kwargs: true,
    doc: 'Make sure a service is stopped (and disabled at boot with enable: False).',
    params: [NAME, ENABLE, ...WATCH],
    example: 'telnetd:\n  service.dead:\n    - enable: False',
    run: (ctx, a) => dead(ctx, a.named.name, a.named.enable),
    modWatch: (ctx, a) => modWatch(ctx, a.named.name, 'dead', a.named),
  }),
  defineState({
    name: 'service.enabled',
    // Salt's function takes **kwargs: arguments it does not know (restart: True, no_block, ...) are ignored.
    kwargs: true,
    doc: 'Make sure a service starts at boot, without starting or stopping it now.',
    params: [NAME],
    example: 'cron:\n  service.enabled: []',
    run: (ctx, a) => bootOnly(ctx, a.named.name, true),
  }),
  defineState({
    name: 'service.disabled',
    // Salt's function takes **kwargs: arguments it does not know (restart: True, no_block, ...) are ignored.
    kwargs: true,
    doc: 'Make sure a service does not start at boot, without starting or stopping it now.',
    params: [NAME],
    example: 'bluetooth:\n  service.disabled: []',
    run: (ctx, a) => bootOnly(ctx, a.named.name, false),
  }),
];
