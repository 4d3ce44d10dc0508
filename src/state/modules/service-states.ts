// service.running, service.dead, service.enabled, service.disabled, and their mod_watch
// (restart, or reload with `reload: True`, or stop+start with `full_restart: True`), through the
// service execution module; changes are Salt's {name: True/False}.

import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { callFn, stateResult } from './state-result.js';

async function probe(ctx: StateContext, fun: string, name: string, sig?: string): Promise<boolean | string> {
  // sig: a process to look for instead of asking the init script (Salt's status.pid)
  const r = await callFn<unknown>(ctx, fun, sig ? [name, sig] : [name]);
  // linux_service's status is status.pid's answer: the pids (a truthy string) or ''
  return r.ok ? r.value === true || (typeof r.value === 'string' && r.value !== '') : r.message;
}

/** The provider has no boot setting (linux_service): Salt's `"service.enabled" in __salt__` is false. */
const NO_BOOT = 'SERVICE_FUNCTION_UNAVAILABLE';

/** service.enabled before and after a change; true where the provider has none, as Salt defaults it. */
async function bootStatus(ctx: StateContext, name: string): Promise<boolean | string> {
  const r = await callFn<boolean>(ctx, 'service.enabled', [name]);
  if (!r.ok) return r.code === NO_BOOT ? true : r.message;
  return r.value === true;
}

/** How Salt's _enable/_disable word the run state: started True, None (as wanted) or False. */
type Started = boolean | null;
const runWord = (started: Started): string => (started === true ? 'running' : started === null ? 'in the desired state' : 'dead');

/**
 * Salt's _enable/_disable (salt/states/service.py): bring the boot setting in line and say so.
 * Its comment and result replace the run state's; its changes replace them only when it acted.
 * `result` is what Salt passes as the outcome of the run part.
 */
async function toggleBoot(ctx: StateContext, ret: StateResult, enable: boolean, started: Started, result = true): Promise<StateResult> {
  const name = ret.name;
  const verb = enable ? 'enabled' : 'disabled';
  const asked = await callFn<boolean>(ctx, 'service.enabled', [name]);
  if (!asked.ok && asked.code === NO_BOOT) {
    const now = started === true ? 'started' : started === null ? 'is in the desired state' : 'is dead';
    return { ...ret, result, comment: `${enable ? 'Enable' : 'Disable'} is not available on this minion, service ${name} ${now}` };
  }
  if (!asked.ok) return { ...ret, result: false, comment: asked.message };
  const current = asked.value === true;
  if (current === enable) {
    // started None (already in the wanted run state) also clears changes, as Salt does
    return { ...ret, result, comment: `Service ${name} is already ${verb}, and is ${runWord(started)}`, ...(started === null ? { changes: {} } : {}) };
  }
  if (ctx.test) return { ...ret, result: null, comment: `Service ${name} set to be ${verb}` };
  const r = await callFn<boolean>(ctx, enable ? 'service.enable' : 'service.disable', [name]);
  if (!r.ok || r.value !== true) {
    const tail = started === true ? ', but the service is running' : started === null ? `, but the service was already ${enable ? 'running' : 'dead'}` : ', and the service is dead';
    return {
      ...ret,
      result: false,
      comment: `Failed when setting service ${name} to ${enable ? 'start' : 'not start'} at boot${tail}${r.ok ? '' : `. Additional information follows:\n\n${r.message}`}`,
    };
  }
  return { ...ret, result, changes: { [name]: true }, comment: `Service ${name} has been ${verb}, and is ${runWord(started)}` };
}

const NAME = { name: 'name', type: 'string', required: true, doc: "the service (unit) name, e.g. 'nginx'" } as const;
const INIT_DELAY = { name: 'init_delay', type: 'number', doc: 'seconds to wait after starting before checking that the service runs' } as const;
const ENABLE = { name: 'enable', type: 'bool', doc: 'also start (True) or do not start (False) at boot; unset leaves it alone' } as const;
const WATCH = [
  { name: 'reload', type: 'bool', default: false, doc: 'on a watch, reload instead of restart' },
  { name: 'full_restart', type: 'bool', default: false, doc: 'on a watch, stop then start instead of restart' },
  { name: 'force', type: 'bool', default: false, doc: 'accepted for Salt compatibility (force-reload on a watch; brine reloads)' },
  { name: 'sig', type: 'string', doc: 'a process (regular expression) to look for in ps instead of asking the init script; ignored under systemd' },
] as const;

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

/** Salt's test=True answer for a service that is not there (or no service manager to ask). */
function notPresent(name: string, would: string): StateResult {
  return stateResult(name, null, `Service ${name} not present; if created in this state run, it would have been ${would}`);
}

/**
 * Salt's _offline(): systemd installed but not running (service.offline). Its running and dead
 * states then return at once; a host without that function is not offline.
 */
async function offline(ctx: StateContext): Promise<boolean> {
  const r = await callFn<boolean>(ctx, 'service.offline');
  return r.ok && r.value === true;
}

const OFFLINE = 'Running in OFFLINE mode. Nothing to do';

async function running(ctx: StateContext, name: string, enable: boolean | undefined, initDelay?: number, sig?: string): Promise<StateResult> {
  if (await offline(ctx)) return stateResult(name, true, OFFLINE);
  const ok = await probe(ctx, 'service.available', name);
  // Without a service manager Salt has no service module to ask, so its test run says "not
  // present"; a real run fails with the module's explanation of what is missing.
  if (typeof ok === 'string') return ctx.test ? notPresent(name, 'started') : stateResult(name, false, ok);
  if (!ok) return ctx.test ? notPresent(name, 'started') : stateResult(name, false, `The named service ${name} is not available`);
  const before = await probe(ctx, 'service.status', name, sig);
  if (typeof before === 'string') return stateResult(name, false, before);
  const bootBefore = await bootStatus(ctx, name);
  if (typeof bootBefore === 'string') return stateResult(name, false, bootBefore);
  if (before) {
    const ret = stateResult(name, true, `The service ${name} is already running`);
    // Salt consults _enable/_disable only when the boot setting differs.
    if (enable === true && !bootBefore) return toggleBoot(ctx, ret, true, null);
    if (enable === false && bootBefore) return toggleBoot(ctx, ret, false, null);
    return ret;
  }
  if (ctx.test) return stateResult(name, null, `Service ${name} is set to start`);
  const start = await callFn(ctx, 'service.start', [name]);
  // Salt's service.start raises with systemctl's message, which becomes the whole comment.
  if (!start.ok) return stateResult(name, false, start.message);
  // an init script that exits non-zero: false, and the boot setting is still brought in line
  if (start.value === false) {
    const failed = stateResult(name, false, `Service ${name} failed to start`);
    return enable === undefined ? failed : toggleBoot(ctx, failed, enable, false, false);
  }
  await delay(ctx, initDelay);
  const after = await probe(ctx, 'service.status', name, sig);
  const bootAfter = await bootStatus(ctx, name);
  const up = after === true;
  const changes = after !== before || bootAfter !== bootBefore ? { [name]: up } : {};
  let ret = stateResult(name, up, up ? `Started service ${name}` : `Service ${name} failed to start`, changes);
  if (enable !== undefined) ret = await toggleBoot(ctx, ret, enable, up, up);
  return initDelay ? { ...ret, comment: `${ret.comment}\nDelayed return for ${initDelay} seconds` } : ret;
}

async function dead(ctx: StateContext, name: string, enable: boolean | undefined, sig?: string): Promise<StateResult> {
  if (await offline(ctx)) return stateResult(name, true, OFFLINE);
  const ok = await probe(ctx, 'service.available', name);
  if (typeof ok === 'string') return ctx.test ? notPresent(name, 'stopped') : stateResult(name, false, ok);
  // A service that does not exist is certainly not running (Salt succeeds, with no comment).
  if (!ok) return ctx.test ? notPresent(name, 'stopped') : stateResult(name, true, '');
  const before = await probe(ctx, 'service.status', name, sig);
  if (typeof before === 'string') return stateResult(name, false, before);
  const bootBefore = await bootStatus(ctx, name);
  if (typeof bootBefore === 'string') return stateResult(name, false, bootBefore);
  if (!before) {
    const ret = stateResult(name, true, `The service ${name} is already dead`);
    if (enable === true && !bootBefore) return toggleBoot(ctx, ret, true, null);
    if (enable === false && bootBefore) return toggleBoot(ctx, ret, false, null);
    return ret;
  }
  if (ctx.test) return stateResult(name, null, `Service ${name} is set to be killed`);
  const stop = await callFn(ctx, 'service.stop', [name]);
  if (!stop.ok) return stateResult(name, false, stop.message);
  if (stop.value === false) {
    const failed = stateResult(name, false, `Service ${name} failed to die`);
    return enable === undefined ? failed : toggleBoot(ctx, failed, enable, true, false);
  }
  // Salt's dead asks this one without sig
  const after = await probe(ctx, 'service.status', name);
  const bootAfter = await bootStatus(ctx, name);
  const down = after === false;
  // Salt records the status after stopping: {name: False} once it is dead.
  const changes = after !== before || bootAfter !== bootBefore ? { [name]: after === true } : {};
  const ret = stateResult(name, down, down ? `Service ${name} was killed` : `Service ${name} failed to die`, changes);
  return enable === undefined ? ret : toggleBoot(ctx, ret, enable, !down, down);
}

/**
 * Salt's service.mod_watch: restart (or reload / full restart) a running service, start a
 * stopped one; for service.dead, stop a running one. Changes are {name: <outcome>}.
 */
async function modWatch(ctx: StateContext, name: string, sfun: 'running' | 'dead', opts: { reload: boolean; full_restart: boolean; init_delay?: number; sig?: string }): Promise<StateResult> {
  const ok = await probe(ctx, 'service.available', name);
  if (ok !== true && !ctx.test) return stateResult(name, false, typeof ok === 'string' ? ok : `The named service ${name} is not available`);
  // Salt's mod_watch asks only service.status: with test=True, a service no manager knows (or
  // no service manager at all) is one that is not running, not a failure
  const status = ok === true ? await probe(ctx, 'service.status', name, opts.sig) : false;
  if (typeof status === 'string') return stateResult(name, false, status);
  let steps: string[];
  let verb: string;
  if (sfun === 'dead') {
    if (!status) return stateResult(name, true, 'Service is already stopped');
    [steps, verb] = [['service.stop'], 'stop'];
  } else if (!status) [steps, verb] = [['service.start'], 'start'];
  else if (opts.reload) [steps, verb] = [['service.reload'], 'reload'];
  else if (opts.full_restart) [steps, verb] = [['service.stop', 'service.start'], 'fully restart'];
  else [steps, verb] = [['service.restart'], 'restart'];
  const past = verb === 'stop' ? 'stopped' : `${verb}ed`;
  if (ctx.test) return stateResult(name, null, `Service is set to be ${past}`);
  // Salt stops a service before a watch starts it (a stale pid file, a half-started daemon),
  // whatever that stop answers
  if (verb === 'start') await callFn(ctx, 'service.stop', [name]);
  for (const fun of steps) {
    const r = await callFn(ctx, fun, [name]);
    // Salt's service functions raise with the manager's message, which becomes the comment.
    if (!r.ok) return stateResult(name, false, r.message);
    // an init script's false (debian_service) is the result, with {name: False}
    if (r.value === false) return stateResult(name, false, `Failed to ${verb} the service`, { [name]: false });
  }
  // Salt's mod_watch sleeps init_delay after the restart or reload.
  await delay(ctx, opts.init_delay);
  return stateResult(name, true, `Service ${past}`, { [name]: true });
}

/** service.enabled / service.disabled: Salt's _enable/_disable with started None. */
async function bootOnly(ctx: StateContext, name: string, enable: boolean): Promise<StateResult> {
  const ok = await probe(ctx, 'service.available', name);
  if (typeof ok === 'string' || !ok) {
    if (enable && ctx.test) return notPresent(name, 'enabled');
    // no service manager to ask: Salt loads no service states there; brine cannot tell, so None
    if (typeof ok === 'string' && ctx.test) return notPresent(name, 'disabled');
    if (typeof ok === 'string') return stateResult(name, false, ok);
    // _disable treats a missing service as disabled; _enable fails
    return stateResult(name, !enable, `The named service ${name} is not available`);
  }
  return toggleBoot(ctx, stateResult(name, true, ''), enable, null);
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
    run: (ctx, a) => running(ctx, a.named.name, a.named.enable, a.named.init_delay, a.named.sig),
    modWatch: (ctx, a) => modWatch(ctx, a.named.name, 'running', a.named),
  }),
  defineState({
    name: 'service.dead',
    // Salt's function takes **kwargs: arguments it does not know (restart: True, no_block, ...) are ignored.
    kwargs: true,
    doc: 'Make sure a service is stopped (and disabled at boot with enable: False).',
    params: [NAME, ENABLE, ...WATCH],
    example: 'telnetd:\n  service.dead:\n    - enable: False',
    run: (ctx, a) => dead(ctx, a.named.name, a.named.enable, a.named.sig),
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
