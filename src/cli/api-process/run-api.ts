// `brine api`: the REST API as its own process (docs/api.md, "Running the API as its own
// process"). It reads the master's configuration, needs `api: {standalone: true}` (so it and the
// master never both serve the port), and serves the same routes as the master's in-process API
// over a backend that talks to the master through its control socket.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { apiOptionsFrom, apiTlsMaterial, startApiServer, type ApiServer } from '../../api/index.js';
import { Authenticator } from '../../auth/index.js';
import type { MasterOptions } from '../../config/index.js';
import { JobCache } from '../../jobs/index.js';
// through the master barrel, as before issue 12's lean CLI: with a lighter `brine api` the
// api-process test's master-restart case failed more often (it also fails on the old tree under
// load: timing, see bench/README.md, issue 12), so the API process keeps its old start-up
import { controlSocketPath } from '../../master/index.js';
import { KeyStore, loadOrCreateIdentity } from '../../pki/index.js';
import { systemClock } from '../../util/clock.js';
import { BrineError } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import { createRemoteBackend } from './remote-backend.js';

export interface ApiProcess {
  server: ApiServer;
  stop(): Promise<void>;
}

/** The checked API settings for `brine api`: API_NOT_CONFIGURED without `api:`, CONFIG_VALUE unless standalone. */
export function standaloneApiOptions(opts: MasterOptions) {
  const apiOpts = apiOptionsFrom(opts);
  if (!apiOpts) throw new BrineError('API_NOT_CONFIGURED', 'the master configuration has no `api:` (or `rest_cherrypy:`) section, so there is no API to serve; add `api: {standalone: true}` to it');
  if (!apiOpts.standalone) {
    throw new BrineError(
      'CONFIG_VALUE',
      `${apiOpts.section}: standalone is not true, so the master serves the API itself on port ${apiOpts.port}; either set \`${apiOpts.section}: {standalone: true}\` and restart the master (then \`brine api\` serves it), or do not run \`brine api\``,
      { details: { option: `${apiOpts.section}.standalone` } },
    );
  }
  return apiOpts;
}

export async function startApiProcess(opts: MasterOptions, logger: Logger): Promise<ApiProcess> {
  const apiOpts = standaloneApiOptions(opts);
  const clock = systemClock;
  if (!fs.existsSync(path.join(opts.pki_dir, 'master.pem'))) {
    throw new BrineError(
      'KEY_NOT_FOUND',
      `no master key in pki_dir ${opts.pki_dir}: start the master once with this configuration (-c) before \`brine api\`, which signs its tokens with the master's key`,
    );
  }
  const identity = await loadOrCreateIdentity({ pkiDir: opts.pki_dir, name: 'master', commonName: opts.id || 'brine-master' });
  const cacheFile = path.join(opts.cachedir, 'jobs.sqlite');
  if (!fs.existsSync(cacheFile)) throw new BrineError('MASTER_UNREACHABLE', `no job cache at ${cacheFile}: start the master once with this configuration (-c) before \`brine api\``);
  const cache = JobCache.open(cacheFile, { keepJobsSeconds: 0 });
  const auth = Authenticator.forMaster(opts, { keyFingerprint: identity.fingerprint, clock, logger });
  const backend = createRemoteBackend({
    socketPath: controlSocketPath(opts),
    logger,
    clock,
    auth,
    keys: new KeyStore(opts.pki_dir),
    masterFingerprint: identity.fingerprint,
    cache,
    options: { ...opts },
  });
  let server: ApiServer;
  try {
    const tls = await apiTlsMaterial({ pki_dir: opts.pki_dir, id: opts.id, master: identity }, apiOpts.disableSsl || apiOpts.sslCrt !== undefined);
    server = await startApiServer(backend, apiOpts, tls);
  } catch (err) {
    backend.close();
    auth.close();
    cache.close();
    throw err;
  }
  // the master purges tokens only when it serves the API itself
  const purge = setInterval(() => {
    try {
      auth.purgeExpired();
    } catch (err) {
      logger.warn({ err }, 'purging expired API tokens failed; expired tokens are refused anyway');
    }
  }, 3600_000);
  purge.unref();
  logger.info({ url: server.url, socket: controlSocketPath(opts) }, `brine api serving the REST API on ${server.url}, through the master's control socket ${controlSocketPath(opts)}`);
  return {
    server,
    stop: async () => {
      clearInterval(purge);
      await server.close();
      backend.close();
      auth.close();
      cache.close();
    },
  };
}
