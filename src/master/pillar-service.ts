// The master's pillar: renders each minion's pillar from pillar_roots with its cached grains,
// keeps it per minion (in memory for targeting, on disk 0600 so it survives a restart) and
// sends it only over that minion's own session. A render is reused until a pillar file or that
// minion's grains change. A failed render keeps the last good pillar and records the errors
// (Salt's `_errors`). Pillar values never reach a log line: only counts, file names and lines.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { printable } from '../util/printable.js';
import { checkMergeStrategy, type MergeStrategy, type PillarData } from '../util/dict-merge.js';
import type { PillarReply, PillarRequest } from '../protocol/index.js';
import type { GitRemotes } from '../fileserver/git/index.js';
import { compilePillar, type ExtPillarSource, GpgCache, type GpgOptions, gpgKeysStamp, gpgOptionsOf, PillarRoots, planExtPillar } from '../pillar/index.js';
import { errorMessage } from '../util/errors.js';

/** What the service needs of a session: the identity is the session's, never the request's. */
export interface PillarSession {
  readonly id: string;
  readonly ready: boolean;
  sendPillarReply(reply: PillarReply): boolean;
}

export interface PillarServiceOptions {
  root_dir?: unknown;
  pillar_roots?: unknown;
  pillar_source_merging_strategy: string;
  pillar_merge_lists: boolean;
  pillarenv: string | null;
  cachedir: string;
  nodegroups?: Readonly<Record<string, unknown>>;
  allow_undefined?: boolean;
  config_dir?: string;
  ext_pillar?: unknown;
  ext_pillar_first?: boolean;
  /** Seconds. */
  ext_pillar_cmd_timeout?: number;
  gpg_keydir?: string | null;
  gpg_decrypt_must_succeed?: boolean;
}

/** One minion's cached pillar, as kept on disk (`<cachedir>/pillar/<id>.json`, mode 0600). */
export interface PillarCacheRecord {
  id: string;
  /** The last good pillar (what targeting and the minion use). */
  pillar: PillarData;
  /** Errors of the latest render; empty when it succeeded. */
  errors: string[];
  /** The top files gave this minion no SLS at all (an empty pillar that may be a mistake). */
  matchedNothing: boolean;
  renderedAt: number;
  grainsHash: string;
}

/** How long one scan of pillar_roots answers for (requests in a burst share it). */
export const STAMP_REUSE_MS = 100;

export const PILLAR_CACHE_DIR = 'pillar';

export function pillarCacheFile(cachedir: string, id: string): string {
  return path.join(cachedir, PILLAR_CACHE_DIR, `${encodeURIComponent(id)}.json`);
}

/** Reads every cached record (for brine doctor and the master's start); damaged files are skipped. */
export function readPillarCache(cachedir: string): PillarCacheRecord[] {
  const dir = path.join(cachedir, PILLAR_CACHE_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch {
    return [];
  }
  const out: PillarCacheRecord[] = [];
  for (const n of names) {
    try {
      const rec = JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) as PillarCacheRecord;
      if (typeof rec.id === 'string' && typeof rec.pillar === 'object' && rec.pillar !== null && Array.isArray(rec.errors)) out.push(rec);
    } catch {
      // a torn or foreign file: the next render of that minion replaces it
    }
  }
  return out;
}

interface Entry extends PillarCacheRecord {
  stamp: string;
}

/** Where render errors point, without their text (which may quote a line holding a secret). */
function errorPlaces(errors: readonly string[]): string[] {
  const places = new Set<string>();
  for (const e of errors) {
    const m = /pillar_roots (\S+?:\S+?)(?::(\d+))?(?::\d+)?(?::|\s|$)/.exec(e) ?? /(ext_pillar #\d+ \(\w+\))/.exec(e) ?? /SLS '([^']+)'/.exec(e);
    places.add(m ? `${m[1]}${m[2] ? `:${m[2]}` : ''}` : 'pillar top file or configuration');
  }
  return [...places];
}

export class PillarService {
  private readonly roots: PillarRoots;
  private readonly strategy: MergeStrategy;
  private readonly ext: readonly ExtPillarSource[];
  private readonly gpg: GpgOptions;
  /** Bumped for each scan while a source's data may change at any time (a cmd_* ext_pillar). */
  private volatile = 0;
  /** Decrypted blocks shared by every minion's render; emptied when gpg_keydir's secret keys change. */
  private readonly gpgCache = new GpgCache();
  private gpgKeys = '';
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  private stampValue: { at: number; stamp: string; volatile: boolean } | undefined;
  /** Requests naming another minion's ID, refused (threats.md #38). */
  refusedCount = 0;
  /** Renders done (cache misses), for tests and the benchmark. */
  renders = 0;

  constructor(
    private readonly opts: PillarServiceOptions,
    private readonly logger: Logger,
    /** The minion data cache's grains of a minion. */
    private readonly grainsOf: (id: string) => Readonly<Record<string, unknown>> | undefined,
    /** The scan reuse window (monotonic) and renderedAt (wall clock). */
    private readonly clock: Clock = systemClock,
  ) {
    this.strategy = checkMergeStrategy(opts.pillar_source_merging_strategy);
    this.roots = new PillarRoots(opts);
    // a malformed ext_pillar stops the master here, with the entry named
    const plan = planExtPillar(opts.ext_pillar, {
      pillarenv: opts.pillarenv,
      pillarenvRoots: opts.pillarenv === null ? undefined : this.roots.roots.roots.get(opts.pillarenv),
      cmdTimeoutMs: (opts.ext_pillar_cmd_timeout ?? 60) * 1000,
      // git_pillar_* options, its clones under cachedir, its fetch failures in the log
      options: opts as unknown as Readonly<Record<string, unknown>>,
      cachedir: opts.cachedir,
      logger,
    });
    this.ext = plan.sources;
    this.gpg = gpgOptionsOf(opts, (what) => logger.warn({ code: 'GPG_DECRYPT_FAILED' }, what), this.gpgCache);
    const dir = path.join(opts.cachedir, PILLAR_CACHE_DIR);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // an existing directory (made by an older version or by hand) is narrowed too: it holds secrets
    fs.chmodSync(dir, 0o700);
    for (const rec of readPillarCache(opts.cachedir)) this.entries.set(rec.id, { ...rec, stamp: '' });
    if (this.entries.size > 0) logger.info({ minions: this.entries.size }, `loaded the cached pillar of ${this.entries.size} minions`);
  }

  /** The git remotes of the git ext_pillar entries, which the master keeps fetched (GitRemotesUpdater). */
  gitRemotes(): GitRemotes[] {
    return this.ext.flatMap((s) => (s.remotes ? [s.remotes] : []));
  }

  /** The cached (last good) pillar of a minion, for pillar targets; undefined when none. */
  pillarOf(id: string): PillarData | undefined {
    return this.entries.get(id)?.pillar;
  }

  /** Answers one request from an authenticated session. */
  handle(session: PillarSession, req: PillarRequest): void {
    if (req.id !== undefined && req.id !== session.id) {
      this.refusedCount++;
      this.logger.warn(
        { id: session.id, asked: printable(req.id.slice(0, 256)), code: 'PILLAR_DENIED', refused: this.refusedCount },
        `refused a pillar request from minion ${session.id} for another minion's pillar (${printable(req.id.slice(0, 256))}); nothing was sent`,
      );
      session.sendPillarReply({ t: 'pillar_reply', rid: req.rid, ok: false, error: { code: 'PILLAR_DENIED', message: 'a minion gets only its own pillar; nothing was sent' } });
      return;
    }
    if (req.pillarenv !== undefined && !this.knownPillarenv(session, req.rid, req.pillarenv)) return;
    const rendering = req.pillarenv !== undefined ? this.renderOnce(session.id, req.pillarenv) : this.pillarFor(session.id);
    rendering.then(
      (e) => {
        if (!session.ready) return;
        session.sendPillarReply({ t: 'pillar_reply', rid: req.rid, ok: true, pillar: e.pillar, ...(e.errors.length > 0 ? { errors: e.errors } : {}) });
      },
      (err: unknown) => {
        this.logger.error({ err, id: session.id }, `rendering the pillar of ${session.id} failed inside brine; see the error above`);
        session.sendPillarReply({ t: 'pillar_reply', rid: req.rid, ok: false, error: { code: 'INTERNAL', message: 'the master could not render this pillar; see the master log' } });
      },
    );
  }

  /**
   * Whether `pillarenv` is one of pillar_roots' environments (checked against the configured names
   * before any file is read); answers PILLARENV_UNKNOWN when not.
   */
  private knownPillarenv(session: PillarSession, rid: number, pillarenv: string): boolean {
    let envs: string[];
    try {
      envs = this.roots.envs();
    } catch {
      envs = [];
    }
    // and the environments of git_pillar remotes (their branches)
    envs = [...new Set([...envs, ...this.ext.flatMap((s) => s.envs?.() ?? [])])];
    if (envs.includes(pillarenv)) return true;
    const shown = printable(pillarenv.slice(0, 128));
    this.logger.info(
      { id: session.id, pillarenv: shown, code: 'PILLARENV_UNKNOWN' },
      `minion ${session.id} asked for its pillar from pillarenv ${shown}, which pillar_roots does not have; nothing was rendered`,
    );
    session.sendPillarReply({
      t: 'pillar_reply',
      rid,
      ok: false,
      error: {
        code: 'PILLARENV_UNKNOWN',
        message: `pillarenv ${JSON.stringify(shown)} is not an environment of the master's pillar_roots (${envs.join(', ') || 'none'}); use one of those, or add it to pillar_roots on the master`,
      },
    });
    return false;
  }

  /**
   * The minion's pillar from one pillar environment, for one call (state.apply pillarenv=): not
   * cached, and the minion's cached pillar (pillar targets, its own store) is left as it is.
   */
  private async renderOnce(id: string, pillarenv: string): Promise<{ pillar: PillarData; errors: string[] }> {
    this.renders++;
    const result = await this.compile(id, this.grainsOf(id) ?? { id }, pillarenv);
    return { pillar: result.pillar, errors: result.errors };
  }

  private compile(id: string, grains: Readonly<Record<string, unknown>>, pillarenv: string | null) {
    return compilePillar(
      this.roots,
      { id, grains, ...(this.opts.nodegroups ? { nodegroups: this.opts.nodegroups } : {}) },
      {
        strategy: this.strategy,
        mergeLists: this.opts.pillar_merge_lists,
        // grains are the minion's claims: a control character in one a template reads is refused
        untrustedGrains: true,
        ...(pillarenv ? { pillarenv } : {}),
        ...(this.opts.allow_undefined ? { allowUndefined: true } : {}),
        gpg: this.gpg,
        ext: this.ext,
        extFirst: this.opts.ext_pillar_first === true,
      },
    );
  }

  /** The minion's pillar, rendered again only when pillar_roots or its grains changed. */
  pillarFor(id: string): Promise<Entry> {
    const running = this.inflight.get(id);
    if (running) return running;
    const p = this.refresh(id).finally(() => this.inflight.delete(id));
    this.inflight.set(id, p);
    return p;
  }

  /**
   * A minion's pillar rendered by another master (transport: nats, the shared minion data): kept
   * as this master's cache for pillar targets, and rendered again here at the minion's next request.
   */
  adopt(rec: PillarCacheRecord): void {
    const entry: Entry = { ...rec, stamp: '' };
    this.entries.set(rec.id, entry);
    this.save(entry);
  }

  /** Forgets a minion whose key is no longer accepted (memory and disk). */
  purge(id: string): void {
    this.entries.delete(id);
    try {
      fs.rmSync(pillarCacheFile(this.opts.cachedir, id), { force: true });
    } catch (err) {
      this.logger.error({ err: errorMessage(err), id }, `could not delete the cached pillar of ${id}`);
    }
  }

  private stamp(): string {
    const now = this.clock.monotonic();
    // the scan of the files is reused for a moment; a command source (no stamp) is new at every request
    if (!this.stampValue || now - this.stampValue.at >= STAMP_REUSE_MS) {
      const keys = gpgKeysStamp(this.gpg);
      if (keys !== this.gpgKeys) {
        // a key removed must not keep decrypting from memory
        this.gpgCache.clear();
        this.gpgKeys = keys;
      }
      const hash = createHash('sha256').update(this.roots.stamp()).update(keys);
      let volatile = false;
      for (const s of this.ext) {
        const part = s.stamp();
        volatile ||= part === undefined;
        hash.update(part ?? 'volatile');
      }
      this.stampValue = { at: now, stamp: hash.digest('hex'), volatile };
    }
    return this.stampValue.volatile ? `${this.stampValue.stamp}:${this.volatile++}` : this.stampValue.stamp;
  }

  private async refresh(id: string): Promise<Entry> {
    const grains = this.grainsOf(id) ?? { id };
    const grainsHash = createHash('sha256').update(JSON.stringify(grains)).digest('hex');
    const stamp = this.stamp();
    const prev = this.entries.get(id);
    if (prev && prev.stamp === stamp && prev.grainsHash === grainsHash) return prev;
    this.renders++;
    const result = await this.compile(id, grains, this.opts.pillarenv);
    const failed = result.errors.length > 0;
    const entry: Entry = {
      id,
      // a failed render keeps the last good pillar (other minions are not touched)
      pillar: failed ? (prev?.pillar ?? {}) : result.pillar,
      errors: result.errors,
      matchedNothing: !failed && Object.keys(result.top).length === 0,
      renderedAt: this.clock.now(),
      grainsHash,
      stamp,
    };
    this.entries.set(id, entry);
    this.save(entry);
    if (result.unsafeGrains.length > 0) {
      // the grain path only: its value is the minion's and may be long or hostile
      this.logger.warn(
        { id, code: 'GRAIN_UNSAFE', grains: result.unsafeGrains },
        `refused to render the pillar of ${id} with its grain(s) ${result.unsafeGrains.join(', ')}: a grain read by a pillar template holds a control character (a newline could add keys or SLS to the rendered YAML); it keeps its last good pillar. Fix the grain on minion ${id}, then run saltutil.refresh_grains and saltutil.refresh_pillar there`,
      );
    }
    if (failed) {
      this.logger.warn(
        { id, errors: result.errors.length, places: errorPlaces(result.errors) },
        `the pillar of ${id} did not render (${result.errors.length} error(s) in ${errorPlaces(result.errors).join(', ')}); it keeps its last good pillar. Fix the file; 'brine doctor master' and pillar.items (_errors) show the error`,
      );
    } else {
      this.logger.debug({ id, keys: Object.keys(entry.pillar).length, sls: Object.values(result.top).flat().length }, `rendered the pillar of ${id}`);
    }
    return entry;
  }

  private save(e: Entry): void {
    const { stamp: _stamp, ...rec } = e;
    try {
      writeFileAtomicSync(pillarCacheFile(this.opts.cachedir, e.id), JSON.stringify(rec), { mode: 0o600, fsync: false });
    } catch (err) {
      this.logger.error({ err: errorMessage(err), id: e.id }, `could not write the pillar cache of ${e.id} under ${this.opts.cachedir}; it is kept in memory until the master restarts`);
    }
  }
}
