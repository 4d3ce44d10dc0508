// What is wrong with a resolved ID, in words an operator can act on: a localhost-like or
// IP-derived ID, a resolver that maps the hostname to 127.0.0.1, a stale cache, a cloned image.
// The daemon logs these at start; `brine doctor id` prints them as OK/WARN/FAIL lines.

import { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { isLocalhostLike, minionIdProblem } from '../util/minion-id.js';
import type { HostsEntry } from './hosts-file.js';
import type { IdResolution, IdSource } from './minion-id.js';

export type CheckLevel = 'ok' | 'warn' | 'fail';
export type CheckTopic = 'id' | 'fqdn' | 'cache' | 'machine_id';

export interface IdCheck {
  level: CheckLevel;
  topic: CheckTopic;
  /** A short machine-readable cause: localhost_like, ip_derived, fqdn_localhost, stale_cache, cloned_image ... */
  cause: string;
  message: string;
  /** What to do; present on every warn and fail. */
  fix?: string;
}

export interface CheckOptions {
  /** refuse_cloned_id: a cloned image is a failure, not a warning. */
  refuseClonedId: boolean;
}

const SOURCE_TEXT: ReadonlyMap<IdSource, string> = new Map<IdSource, string>([
  ['config', '`id:` in the minion config'],
  ['cache', 'the cached minion_id file'],
  ['id_function', 'id_function'],
  ['fqdn', 'the FQDN of the hostname, getfqdn'],
  ['nodename', 'the platform node name, uname -n'],
  ['hostname', 'the hostname, gethostname'],
  ['localhost_canonname', "the resolver's canonical name for localhost"],
  ['etc_hostname', '/etc/hostname'],
  ['etc_nodename', '/etc/nodename'],
  ['etc_hosts', 'a loopback line of /etc/hosts'],
  ['ip_address', 'an IPv4 address of this host'],
  ['fallback', "Salt's last resort, the literal localhost: no candidate survived the filter"],
]);

export function describeSource(source: IdSource): string {
  return SOURCE_TEXT.get(source) ?? source;
}

/** Why the FQDN came back localhost-like, naming the /etc/hosts lines when they are the cause. */
function fqdnCause(res: IdResolution, hostname: string): string {
  const f = res.fqdn!;
  const quote = (e: HostsEntry) => `line ${e.line}: "${e.text}"`;
  if (f.via === 'hosts' && f.hostsEntry) {
    const reverse = f.hostsEntry;
    const fwd = f.forwardEntry;
    if (fwd === undefined || fwd.line === reverse.line) {
      return `because /etc/hosts maps ${reverse.address} to the hostname ${hostname} (${quote(reverse)}), and the first name on that line is ${reverse.names[0]}`;
    }
    return `because /etc/hosts maps the hostname ${hostname} to ${fwd.address} (${quote(fwd)}), and the reverse lookup of ${reverse.address} finds an earlier line first (${quote(reverse)})`;
  }
  if (f.via === 'resolver') return `because the resolver maps ${hostname} to ${f.address ?? '?'}, whose name is ${f.name}`;
  return 'from the resolver';
}

function idCheck(res: IdResolution): IdCheck[] {
  const shown = `${res.id} (from ${describeSource(res.source)})`;
  const problem = minionIdProblem(res.id);
  if (problem !== undefined) {
    const localhost = isLocalhostLike(res.id);
    const fix =
      res.source === 'cache'
        ? `delete ${res.cache.file} and restart the minion (fix the cause first, see the other lines), or set id: in the minion config`
        : res.source === 'config'
          ? 'change id: in the minion config to a unique name'
          : 'give this host a real hostname (hostnamectl set-hostname NAME) or set id: in the minion config';
    return [{ level: 'fail', topic: 'id', cause: localhost ? 'localhost_like' : 'invalid', message: `the ID ${shown} cannot be used: ${problem}`, fix }];
  }
  const out: IdCheck[] = [{ level: 'ok', topic: 'id', cause: 'ok', message: shown }];
  if (res.source === 'ip_address') {
    out.push({
      level: 'warn',
      topic: 'id',
      cause: 'ip_derived',
      message: `the ID ${res.id} was derived from an IP address: no host name (FQDN, node name, hostname, /etc/hostname, /etc/nodename, /etc/hosts) survived the localhost filter, so the ID changes whenever the address does`,
      fix: `give this host a real hostname (hostnamectl set-hostname NAME), delete ${res.cache.file} and restart, or set id: in the minion config`,
    });
  }
  return out;
}

function fqdnChecks(res: IdResolution): IdCheck[] {
  const f = res.fqdn;
  const hostname = res.candidates.find((c) => c.source === 'hostname')?.value ?? '';
  if (!f || f.name === '' || !isLocalhostLike(f.name) || isLocalhostLike(hostname)) return [];
  const message = `the FQDN of ${hostname} came back as ${f.name} ${fqdnCause(res, hostname)}`;
  const fix = `in /etc/hosts map ${hostname} to this host's own address (e.g. "10.0.0.7 ${hostname}.example.com ${hostname}"), not to 127.0.0.1, or set id: in the minion config`;
  // with id: set the ID does not depend on it; still worth knowing
  if (res.source === 'config') return [{ level: 'ok', topic: 'fqdn', cause: 'fqdn_localhost', message: `${message} (not used: id: is set)` }];
  return [{ level: 'warn', topic: 'fqdn', cause: 'fqdn_localhost', message, fix }];
}

function cacheChecks(res: IdResolution): IdCheck[] {
  const c = res.cache;
  if (res.source === 'config') return [{ level: 'ok', topic: 'cache', cause: 'not_consulted', message: 'id: is set, so the minion_id cache is not consulted' }];
  if (!c.enabled) return [{ level: 'ok', topic: 'cache', cause: 'disabled', message: 'minion_id_caching is off: the ID is generated at every start' }];
  if (c.used) {
    const today = res.generated;
    if (today && today.id !== c.found) {
      return [
        {
          level: 'warn',
          topic: 'cache',
          cause: 'stale_cache',
          message: `the cached ID ${c.found} in ${c.file} is stale: resolution today gives ${today.id} (from ${describeSource(today.source)}); a cached ID survives renames, /etc/hosts fixes and cloned images`,
          fix:
            minionIdProblem(c.found) === undefined
              ? `if this host was renamed, cloned or its /etc/hosts fixed, delete ${c.file} and restart the minion (and remove the old key on the master with brine key -d ${c.found} if nothing else uses it); to keep ${c.found}, set id: ${c.found} in the minion config`
              : `delete ${c.file} and restart the minion; it will then use ${today.id}`,
        },
      ];
    }
    return [{ level: 'ok', topic: 'cache', cause: 'fresh', message: `${c.file} holds ${c.found}, the same as resolution gives today` }];
  }
  if (c.writeError !== undefined) {
    return [
      {
        level: 'warn',
        topic: 'cache',
        cause: 'write_failed',
        message: `could not cache the ID in ${c.file}: ${c.writeError}`,
        fix: 'make the config directory writable by the minion user, or set id: in the minion config',
      },
    ];
  }
  const found = c.found !== undefined ? ` (it held ${JSON.stringify(c.found)}, which Salt ignores)` : '';
  if (c.written) return [{ level: 'ok', topic: 'cache', cause: 'written', message: `cached ${res.id} in ${c.file}${found}` }];
  return [{ level: 'ok', topic: 'cache', cause: 'absent', message: `no usable cached ID in ${c.file}${found}` }];
}

function machineChecks(res: IdResolution, opts: CheckOptions): IdCheck[] {
  const c = res.cache;
  if (!res.machineId) return [{ level: 'ok', topic: 'machine_id', cause: 'unknown', message: 'this host has no /etc/machine-id: cloned images cannot be detected' }];
  if (!c.used) {
    const note = c.written ? `recorded with the cache in ${c.file}` : 'not recorded (nothing cached)';
    return [{ level: 'ok', topic: 'machine_id', cause: 'recorded', message: `machine id ${res.machineId} ${note}` }];
  }
  if (!c.machineId) return [{ level: 'ok', topic: 'machine_id', cause: 'not_recorded', message: `${c.file} records no machine id (written by Salt or by hand): a cloned image cannot be detected` }];
  if (c.machineId === res.machineId) return [{ level: 'ok', topic: 'machine_id', cause: 'match', message: `machine id ${res.machineId} matches the one recorded in ${c.file}` }];
  return [
    {
      level: opts.refuseClonedId ? 'fail' : 'warn',
      topic: 'machine_id',
      cause: 'cloned_image',
      message: `CLONED IMAGE: the cached ID ${c.found} in ${c.file} was written on machine ${c.machineId}, but this machine is ${res.machineId}; every clone of that image claims ${c.found}, and the master denies all but one of them`,
      fix: `delete ${c.file} and restart so this host generates its own ID (or set id: in the minion config)${opts.refuseClonedId ? '' : '; refuse_cloned_id: true makes the minion refuse to start instead'}`,
    },
  ];
}

export function checkIdResolution(res: IdResolution, opts: CheckOptions): IdCheck[] {
  return [...idCheck(res), ...fqdnChecks(res), ...cacheChecks(res), ...machineChecks(res, opts)];
}

/**
 * At minion start: logs the ID and its source, every warning with its fix, and throws for an
 * ID the minion must not use (INVALID_ID) or a cloned image with refuse_cloned_id (ID_CLONED).
 */
export function reportIdAtStart(res: IdResolution, opts: CheckOptions, logger: Logger): IdCheck[] {
  const checks = checkIdResolution(res, opts);
  const warnings = checks.filter((x) => x.level === 'warn');
  const logWarnings = () => {
    for (const c of warnings) logger.warn({ check: c.topic, cause: c.cause }, `${c.message}. Fix: ${c.fix ?? ''}`);
  };
  // a verdict that stops the minion is thrown after its causes, and the CLI prints it once
  const cloned = checks.find((c) => c.cause === 'cloned_image' && c.level === 'fail');
  const bad = checks.find((c) => c.topic === 'id' && c.level === 'fail');
  if (cloned || bad) {
    logWarnings();
    if (cloned) throw new BrineError('ID_CLONED', `${cloned.message}; refuse_cloned_id is on, so the minion does not start. Fix: ${cloned.fix ?? ''}`, { details: { id: res.id } });
    throw new BrineError('INVALID_ID', `${bad!.message}. Fix: ${bad!.fix ?? ''}`, { details: { id: res.id, source: res.source } });
  }
  logger.info({ id: res.id, source: res.source, cachedTo: res.cachedTo }, `minion ID is ${res.id} (from ${describeSource(res.source)})`);
  for (const step of res.steps) logger.debug({ id: res.id }, step);
  logWarnings();
  for (const c of checks.filter((x) => x.level === 'fail')) logger.error({ check: c.topic, cause: c.cause }, `${c.message}. Fix: ${c.fix ?? ''}`);
  return checks;
}
