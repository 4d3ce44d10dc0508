// What this master and the key bucket last agreed on, per minion ID (the digest of its keys),
// kept in a small file so that a master coming back knows which side changed while it was away:
// a `brine key -d` run while the master was down is published, not undone by the bucket.

import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../util/logger.js';
import { isPlainObject } from '../protocol/index.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { minionIdProblem } from '../util/minion-id.js';
import { errorMessage } from '../util/errors.js';

const FILE_MODE = 0o600;
/** Changes are written at most this often (ms); stop() writes what is left. */
const SAVE_DELAY_MS = 1000;

export class KeySyncBase {
  private readonly digests = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly path: string | undefined,
    private readonly bucket: string,
    private readonly logger: Logger,
  ) {}

  /** Loads the file (a missing, damaged or other bucket's file is an empty base, logged). */
  static load(path: string | undefined, bucket: string, logger: Logger): KeySyncBase {
    const base = new KeySyncBase(path, bucket, logger);
    if (path === undefined) return base;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return base; // first start
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (!isPlainObject(parsed) || parsed.v !== 1 || parsed.bucket !== bucket || typeof parsed.ids !== 'object' || parsed.ids === null) throw new Error('not a v1 state of this bucket');
      for (const [id, digest] of Object.entries(parsed.ids)) if (minionIdProblem(id) === undefined && typeof digest === 'string') base.digests.set(id, digest);
    } catch (err) {
      logger.warn({ path, err: errorMessage(err) }, `ignoring the key sync state ${path}: the key bucket's entries win for every ID it knows`);
    }
    return base;
  }

  get(id: string): string | undefined {
    return this.digests.get(id);
  }

  set(id: string, digest: string): void {
    if (this.digests.get(id) === digest) return;
    this.digests.set(id, digest);
    this.scheduleSave();
  }

  private scheduleSave(): void {
    if (this.path === undefined || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.save();
    }, SAVE_DELAY_MS);
    this.timer.unref();
  }

  /** Writes the file now (and cancels a pending write). Never throws: a failure is logged. */
  save(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.path === undefined) return;
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      writeFileAtomicSync(this.path, JSON.stringify({ v: 1, bucket: this.bucket, ids: Object.fromEntries(this.digests) }), FILE_MODE);
    } catch (err) {
      this.logger.error({ code: 'PKI_UNWRITABLE', path: this.path, err: errorMessage(err) }, `cannot write the key sync state ${this.path}; make pki_dir writable by the master's user`);
    }
  }
}
