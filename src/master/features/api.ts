// The REST API, when `api:` or `rest_cherrypy:` is set (docs/api.md): its token store and login
// limits (the Authenticator), its HTTPS server, and the hourly purge of expired tokens.

import type { Clock, TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { MasterOptions } from '../../config/index.js';
import type { Identity } from '../../pki/index.js';
import type { JobCache } from '../../jobs/index.js';
import { sourceKey } from '../../transport/index.js';
import { Authenticator } from '../../auth/index.js';
import { apiOptionsFrom, apiTlsMaterial, startApiServer, type ApiBackend, type ApiServer, type RunnerHost } from '../../api/index.js';
import { createApiBackend, type MasterView } from '../api-backend.js';
import type { JobTracker } from '../job-tracker.js';
import type { RefusalLog } from '../refusal-log.js';
import type { MasterFeature, MasterTargeting } from './master-feature.js';

export interface ApiDeps {
  opts: MasterOptions;
  identity: Identity;
  master: MasterView;
  jobs: JobTracker;
  cache: JobCache;
  targeting: MasterTargeting;
  refusals: RefusalLog;
  runnerHost: RunnerHost;
  logger: Logger;
  clock: Clock;
}

const TOKEN_PURGE_INTERVAL_MS = 3_600_000;

export class Api implements MasterFeature {
  readonly name = 'api';
  private auth: Authenticator | undefined;
  private server: ApiServer | undefined;
  /** The backend the API serves from; orchestration's salt.runner / salt.wheel call the same functions. */
  backend: ApiBackend | undefined;
  private purgeTimer: TimerHandle | undefined;

  constructor(private readonly deps: ApiDeps) {}

  /** The bound port, base URL and routes (undefined when the API is off). */
  get served(): { port: number; url: string; routes: Array<{ method: string; url: string }> } | undefined {
    return this.server ? { port: this.server.port, url: this.server.url, routes: this.server.routes } : undefined;
  }

  async start(): Promise<void> {
    const { opts, identity, logger, clock, refusals, targeting } = this.deps;
    const apiOpts = apiOptionsFrom(opts);
    if (!apiOpts) return;
    if (apiOpts.standalone) {
      logger.info({}, '`api: {standalone: true}` is set: the REST API is served by `brine api`, not by the master');
      return;
    }
    this.auth = Authenticator.forMaster(opts, {
      keyFingerprint: identity.fingerprint,
      clock,
      logger,
      tokenRefusals: { note: (source, reason, logFull) => refusals.note(sourceKey(source), reason, logFull) },
    });
    this.purgeTimer = clock.setInterval(() => this.purgeTokens(), TOKEN_PURGE_INTERVAL_MS);
    const backend = createApiBackend({
      master: this.deps.master,
      auth: this.auth,
      jobs: this.deps.jobs,
      cache: this.deps.cache,
      grainsOf: targeting.grains,
      targeting,
      runnerHost: this.deps.runnerHost,
      logger,
      clock,
    });
    this.backend = backend;
    const tls = await apiTlsMaterial({ pki_dir: opts.pki_dir, id: opts.id, master: identity }, apiOpts.disableSsl || apiOpts.sslCrt !== undefined);
    this.server = await startApiServer(backend, apiOpts, tls);
    logger.info({ url: this.server.url }, `serving the REST API on ${this.server.url}`);
    logger.debug({ routes: this.server.routes }, `REST API routes: ${this.server.routes.map((r) => `${r.method} ${r.url}`).join(', ')}`);
  }

  async stop(): Promise<void> {
    this.purgeTimer?.cancel();
    try {
      await this.server?.close();
    } finally {
      this.auth?.close();
    }
  }

  private purgeTokens(): void {
    try {
      const tokens = this.auth?.purgeExpired() ?? 0;
      if (tokens > 0) this.deps.logger.info({ purged: tokens }, 'forgot expired API tokens');
    } catch (err) {
      this.deps.logger.error({ err }, 'purging expired API tokens failed');
    }
  }
}
