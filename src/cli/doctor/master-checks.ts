// `brine doctor master`: config, whether the master answers on its control socket, keys per
// state, duplicate-ID events of the last 24 h, flapping minions, a writable job cache.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { toBrineError, errnoCode } from '../../util/errors.js';
import type { MasterOptions } from '../../config/index.js';
import type { SessionInfo, SessionsReply } from '../../protocol/index.js';
import { KEY_STATE_DIRS, KeyStore, fingerprint } from '../../pki/index.js';
import { controlSocketPath, GIT_PILLAR_STATUS_FILE, readGitfsStatus, readPillarCache } from '../../master/index.js';
import { requestOnce } from '../control-client.js';
import { fail, ok, type Check } from './check.js';
import { directoriesCheck } from './dirs-check.js';
import { judgePillar } from './pillar-check.js';
import { judgeGitfs, judgeGitPillar } from './gitfs-check.js';
import { judgeDenied, judgeFlapping, judgeKeyCounts, type DeniedKey } from './master-verdicts.js';

/** `configCheck`: the config line, made by the caller that loaded it. */
export async function masterChecks(opts: MasterOptions, configCheck: Check): Promise<Check[]> {
  const checks: Check[] = [configCheck, directoriesCheck(opts)];
  const socket = controlSocketPath(opts);
  let sessions: SessionInfo[] | undefined;
  try {
    sessions = (await requestOnce<SessionsReply>(socket, { t: 'sessions' }, 'sessions')).sessions;
    const connected = sessions.filter((s) => s.state === 'connected').length;
    checks.push(ok('master', `running: the control socket ${socket} answers; ${connected} minion${connected === 1 ? '' : 's'} connected`));
  } catch (err) {
    const e = toBrineError(err);
    checks.push(
      fail(
        'master',
        `not answering on ${socket}: ${e.message}`,
        e.code === 'CONTROL_DENIED' ? e.fix : `start it with 'brine master -c ${opts.config_dir}' (or its service); if it runs, check sock_dir`,
      ),
    );
  }

  const store = new KeyStore(opts.pki_dir);
  try {
    const keys = store.listAll();
    checks.push(judgeKeyCounts(keys));
    checks.push(...judgeDenied(deniedKeys(store, keys.denied, sessions), Date.now()));
  } catch (err) {
    const e = toBrineError(err);
    checks.push(fail('keys', `cannot read the key store in ${opts.pki_dir}: ${e.message}`, e.fix));
  }

  if (sessions) checks.push(...judgeFlapping(sessions));
  checks.push(jobCacheCheck(opts));
  checks.push(...judgePillar(readPillarCache(opts.cachedir)));
  const backends = [opts.fileserver_backend].flat().map(String);
  checks.push(...judgeGitfs(backends.includes('gitfs') || backends.includes('git'), readGitfsStatus(opts.cachedir), Date.now()));
  const gitPillar = Array.isArray(opts.ext_pillar) && opts.ext_pillar.some((e) => typeof e === 'object' && e !== null && 'git' in e);
  checks.push(...judgeGitPillar(gitPillar, readGitfsStatus(opts.cachedir, GIT_PILLAR_STATUS_FILE), Date.now()));
  return checks;
}

function deniedKeys(store: KeyStore, ids: readonly string[], sessions: readonly SessionInfo[] | undefined): DeniedKey[] {
  const dir = path.join(store.pkiDir, KEY_STATE_DIRS.get('denied')!);
  const out: DeniedKey[] = [];
  for (const id of ids) {
    try {
      const pem = store.read('denied', id);
      if (pem === undefined) continue;
      const session = sessions?.find((s) => s.id === id && s.state === 'connected');
      out.push({
        id,
        deniedFingerprint: fingerprint(pem),
        at: fs.statSync(path.join(dir, id)).mtimeMs,
        acceptedFingerprint: store.fingerprintOf('accepted', id),
        pendingFingerprint: store.fingerprintOf('pending', id),
        acceptedRemote: session?.remote,
      });
    } catch {
      // a damaged key file is reported by brine key; the doctor carries on with the others
    }
  }
  return out;
}

/** The master opens <cachedir>/jobs.sqlite read-write at start (creating cachedir); it must be writable. */
function jobCacheCheck(opts: MasterOptions): Check {
  const file = path.join(opts.cachedir, 'jobs.sqlite');
  // the file, else the directory that would hold it, else the nearest ancestor the master would create it in
  let target = file;
  while (!fs.existsSync(target) && path.dirname(target) !== target) target = path.dirname(target);
  try {
    fs.accessSync(target, fs.constants.W_OK);
    return ok('job cache', target === file ? `${file} is writable` : `${file} does not exist yet; ${target} is writable, so the master can create it`);
  } catch (err) {
    const code = errnoCode(err) ?? 'error';
    return fail(
      'job cache',
      `${target} is not writable (${code}), so the master cannot ${target === file ? 'store jobs in' : 'create'} ${file}`,
      `make ${opts.cachedir} and jobs.sqlite in it writable by the user running the master, or set cachedir`,
    );
  }
}
