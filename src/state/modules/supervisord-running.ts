// supervisord.running / supervisord.dead: a program (or `group:`) of a running supervisord started, added or
// restarted through supervisorctl, as Salt's salt/modules/supervisord.py drives it, with Salt
// 3007's comments and changes (salt/states/supervisord.py running, mod_watch restarts). Without
// supervisorctl a test run says the service would be added and started; a real run fails naming
// the Debian package.

import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { which } from '../../modules/host-tools.js';
import { runProcess } from '../../modules/process-runner.js';
import { findUser, readPasswd } from '../../modules/user-db.js';
import { defineState, type StateFunction, type StateResult } from '../types.js';
import { failingSoftly, stateResult } from './state-result.js';

interface Ctl {
  user?: string;
  conf_file?: string;
  bin_env?: string;
}

/** Salt's _get_supervisorctl_bin: bin_env is the program or a virtualenv holding it. */
function ctlBin(binEnv: string | undefined): string | undefined {
  if (!binEnv) return which('supervisorctl');
  if (existsSync(binEnv) && statSync(binEnv).isDirectory()) {
    const p = path.join(binEnv, 'bin', 'supervisorctl');
    return existsSync(p) ? p : undefined;
  }
  return existsSync(binEnv) ? binEnv : undefined;
}

const MISSING = 'supervisorctl is not installed on this minion (Salt: "Could not find a `supervisorctl` binary"); install supervisor first (pkg.installed: supervisor) or give bin_env';

/** Runs `supervisorctl [-c conf] verb [name]`; Salt's _get_return marks a failure with ERROR. */
async function ctl(verb: string, name: string | undefined, o: Ctl): Promise<string> {
  const bin = ctlBin(o.bin_env);
  if (!bin) throw new Error(MISSING);
  let ids: { uid?: number; gid?: number } = {};
  if (o.user) {
    const u = findUser(await readPasswd('supervisord'), o.user);
    if (!u) throw new Error(`User ${o.user} does not exist`);
    ids = { uid: u.uid, gid: u.gid };
  }
  const argv = [bin, ...(o.conf_file ? ['-c', o.conf_file] : []), verb, ...(name !== undefined ? [name] : [])];
  const r = await runProcess({ argv, label: 'supervisord', rstrip: true, ...ids });
  if (verb === 'status') return r.stdout;
  return r.retcode !== 0 && !r.stdout.includes('ERROR') ? `ERROR: ${r.stdout}` : r.stdout;
}

/** Salt's supervisord.status: process -> {state, reason}. */
async function status(o: Ctl): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const line of (await ctl('status', undefined, o)).split('\n')) {
    const [proc, state] = line.trim().split(/\s+/);
    if (proc && state) out.set(proc, state);
  }
  return out;
}

/** Salt's _check_error: "already started" and the like count as success. */
function checkError(result: string, success: string): { comment: string; failed: boolean } {
  if (!result.includes('ERROR')) return { comment: success, failed: false };
  if (['already started', 'not running', 'process group already active'].some((s) => result.includes(s))) return { comment: success, failed: false };
  return { comment: result, failed: true };
}

const stopped = (state: string): boolean => ['STOPPED', 'STOPPING', 'EXITED', 'FATAL', 'BACKOFF'].includes(state);

async function running(rawName: string, a: Ctl & { restart: boolean; update: boolean }, test: boolean): Promise<StateResult> {
  const name = rawName.endsWith(':*') ? rawName.slice(0, -1) : rawName;
  if (test && !ctlBin(a.bin_env)) return stateResult(name, null, `${name.endsWith(':') ? `Group '${name}'` : `Service ${name}`} will be added and started`);
  const all = await status(a);
  const groups = new Set([...all.keys()].filter((p) => p.includes(':')).map((p) => p.slice(0, p.indexOf(':') + 1)));
  const matches = new Map<string, boolean>();
  if (all.has(name)) matches.set(name, all.get(name)!.toLowerCase() === 'running');
  else if (groups.has(name)) for (const [p, s] of all) if (p.startsWith(name)) matches.set(p, s.toLowerCase() === 'running');
  const toAdd = matches.size === 0;
  if (test) {
    if (toAdd) return stateResult(name, null, `${name.endsWith(':') ? `Group '${name}'` : `Service ${name}`} will be added and started`);
    const toStart = [...matches].filter(([, up]) => !up).map(([p]) => p);
    if (toStart.length === 0) return stateResult(name, true, name.endsWith(':') ? `All services in group '${name}' are already running` : `Service ${name} is already running`);
    if (!name.endsWith(':')) return stateResult(name, null, `Service ${name} will be started`);
    return stateResult(name, null, toStart.length === matches.size ? `All services in group '${name}' will be started` : `The following services will be started: ${toStart.join(' ')}`);
  }
  const changes: string[] = [];
  let comment = '';
  let failed = false;
  let justUpdated = false;
  const apply = (r: { comment: string; failed: boolean }) => {
    comment = r.comment;
    failed ||= r.failed;
  };
  if (a.update) {
    const result = await ctl('update', undefined, a);
    apply(checkError(result, 'Updating supervisor'));
    justUpdated = result.includes(`${name}: updated`);
  } else if (toAdd) {
    await ctl('reread', undefined, a);
    const c = `Adding service: ${name}`;
    apply(checkError(await ctl('add', name.endsWith(':') ? name.slice(0, -1) : name, a), c));
    changes.push(c);
  }
  let type: string | undefined;
  let isStopped: boolean | undefined;
  if (groups.has(name)) {
    type = 'group';
    isStopped = [...all].some(([p, s]) => p.startsWith(name) && stopped(s));
  } else if (all.has(name)) {
    type = 'service';
    isStopped = stopped(all.get(name)!);
  }
  const kind = type ? ` ${type}` : '';
  if (isStopped === false) {
    if (a.restart && !justUpdated) {
      const c = `Restarting${kind}: ${name}`;
      apply(checkError(await ctl('restart', name, a), c));
      changes.push(c);
    } else comment = justUpdated ? `Not starting updated${kind}: ${name}` : `Not starting already running${kind}: ${name}`;
  } else if (!justUpdated) {
    const c = `Starting${kind}: ${name}`;
    changes.push(c);
    apply(checkError(await ctl('start', name, a), c));
  }
  return stateResult(name, !failed, comment, !failed && changes.length > 0 ? { [name]: changes.join(' ') } : {});
}

/** Salt's supervisord.dead. */
async function dead(name: string, a: Ctl, test: boolean): Promise<StateResult> {
  if (test) return stateResult(name, null, `Service ${name} is set to be stopped`);
  const all = await status(a);
  const groups = new Set([...all.keys()].filter((p) => p.includes(':')).map((p) => p.slice(0, p.indexOf(':') + 1)));
  let isStopped: boolean;
  if (groups.has(name)) isStopped = [...all].some(([p, s]) => p.startsWith(name) && stopped(s));
  else if (all.has(name)) isStopped = stopped(all.get(name)!);
  else return stateResult(name, true, `Service ${name} doesn't exist`);
  if (isStopped) return stateResult(name, true, `Service ${name} is not running`);
  const comment = `Stopping service: ${name}`;
  // Salt passes {name: output} to _check_error, whose "ERROR" test then looks at the keys only:
  // the stop is reported as done whatever supervisorctl said
  await ctl('stop', name, a);
  return stateResult(name, true, comment, { [name]: comment });
}

const PARAMS = [
  { name: 'name', type: 'string', required: true, doc: "the program as named in supervisor's configuration, or 'group:'" },
  { name: 'restart', type: 'bool', default: false, doc: 'restart it when it already runs' },
  { name: 'update', type: 'bool', default: false, doc: 'run supervisorctl update (reload changed configuration) first' },
  { name: 'user', type: 'string', doc: 'run supervisorctl as this user' },
  { name: 'conf_file', type: 'string', doc: 'the supervisor configuration file (supervisorctl -c)' },
  { name: 'bin_env', type: 'string', doc: 'the supervisorctl program, or a virtualenv holding it' },
] as const;

export const supervisordRunning: StateFunction = failingSoftly(
  defineState({
    name: 'supervisord.running',
    // Salt's supervisord.running takes **kwargs: an argument it does not name is ignored without a warning
    kwargs: true,
    doc: 'Make sure a supervisord program (or group) is running; restarted when a watched state changes.',
    params: PARAMS,
    example: 'wsgi_server:\n  supervisord.running:\n    - update: True',
    run: (ctx, a) => running(a.named.name, a.named, ctx.test),
    // Salt's mod_watch: running with restart=True
    modWatch: (ctx, a) => running(a.named.name, { ...a.named, restart: true }, ctx.test),
  }),
);

export const supervisordDead: StateFunction = failingSoftly(
  defineState({
    name: 'supervisord.dead',
    // Salt's supervisord.dead takes **kwargs: an argument it does not name is ignored without a warning
    kwargs: true,
    doc: 'Make sure a supervisord program (or group) is stopped.',
    params: [PARAMS[0], ...PARAMS.slice(3)],
    example: 'old_worker:\n  supervisord.dead: []',
    run: (ctx, a) => dead(a.named.name, a.named, ctx.test),
  }),
);
