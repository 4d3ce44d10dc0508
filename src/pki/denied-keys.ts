// Every distinct key that was denied for an ID, not only the last one: Salt's minions_denied/ID
// is last-writer-wins, so an attacker's hello could swap the key an operator was about to accept
// (threats.md #31). Each key is kept as one small JSON file under minions_denied/.keys/ID/, a
// dot-directory the ID listing ignores, with the address it came from. Bounded per ID.

import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BrineError, errorMessage, errnoCode } from '../util/errors.js';
import { assertValidMinionId, minionIdProblem } from '../util/minion-id.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { fingerprint } from './fingerprint.js';

/** Most distinct denied keys kept per ID; the one seen longest ago goes first. */
export const DENIED_KEYS_PER_ID = 32;

export interface DeniedKey {
  fingerprint: string;
  pem: string;
  /** Address the key signed in from (`ip:port`); absent for a key planted by hand. */
  remote?: string;
  /** ms since the epoch: first and last sign-in with this key. */
  firstSeen?: number;
  lastSeen?: number;
}

/** A repeated sign-in with a known denied key refreshes its last-seen time at most this often (ms). */
export const DENIED_REFRESH_MS = 60_000;

const HISTORY_DIR = '.keys';
const FILE_MODE = 0o644;
const DIR_MODE = 0o700;

export class DeniedKeyHistory {
  constructor(private readonly deniedDir: string) {}

  /** Remembers a denied key for `id` (or refreshes its last-seen time), dropping the oldest beyond the bound. */
  record(id: string, pem: string, source: { remote: string; at: number }): void {
    const fp = fingerprint(pem);
    const dir = this.dirFor(id);
    const known = this.list(id);
    const same = known.find((k) => k.fingerprint === fp);
    const entry: DeniedKey = { fingerprint: fp, pem, remote: source.remote, firstSeen: same?.firstSeen ?? source.at, lastSeen: source.at };
    try {
      mkdirSync(dir, { recursive: true, mode: DIR_MODE });
      writeFileAtomicSync(join(dir, fileName(fp)), `${JSON.stringify(entry)}\n`, FILE_MODE);
    } catch (err) {
      throw new BrineError('PKI_UNWRITABLE', `cannot record a denied key for ${id} in ${dir}: ${errorMessage(err)}. Make pki_dir writable by the user running the master`, {
        cause: err,
        details: { id },
      });
    }
    if (same !== undefined) return;
    // list() is newest first; drop from the end
    for (const old of known.slice(DENIED_KEYS_PER_ID - 1)) this.forget(id, old.fingerprint);
  }

  /**
   * True when `fp` is recorded for `id` and was seen less than DENIED_REFRESH_MS before `at`: a
   * retry with it need not be written again (one file read, not the ID's whole history).
   */
  seenRecently(id: string, fp: string, at: number): boolean {
    try {
      const parsed = JSON.parse(readFileSync(join(this.dirFor(id), fileName(fp)), 'utf8')) as Partial<DeniedKey>;
      return typeof parsed.pem === 'string' && fingerprint(parsed.pem) === fp && typeof parsed.lastSeen === 'number' && at - parsed.lastSeen < DENIED_REFRESH_MS;
    } catch {
      return false;
    }
  }

  /** The denied keys of `id`, most recently seen first. Unreadable entries are skipped. */
  list(id: string): DeniedKey[] {
    const dir = this.dirFor(id);
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
    } catch {
      return [];
    }
    const out: DeniedKey[] = [];
    for (const name of names) {
      try {
        const parsed = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Partial<DeniedKey>;
        if (typeof parsed.pem !== 'string') continue;
        // the fingerprint is recomputed: the file name and a field could be edited by hand
        out.push({ ...parsed, pem: parsed.pem, fingerprint: fingerprint(parsed.pem) });
      } catch {
        // a damaged entry is not a candidate; the operator can delete the ID's keys with -d
      }
    }
    return out.sort((a, b) => (b.lastSeen ?? 0) - (a.lastSeen ?? 0));
  }

  /** IDs that have at least one recorded denied key. */
  ids(): string[] {
    try {
      return readdirSync(join(this.deniedDir, HISTORY_DIR), { withFileTypes: true })
        .filter((e) => e.isDirectory() && minionIdProblem(e.name) === undefined)
        .map((e) => e.name)
        .filter((id) => this.list(id).length > 0);
    } catch {
      return [];
    }
  }

  /** inode and mtime of `id`'s history directory: changes whenever a key is added, refreshed or forgotten. */
  stampOf(id: string): string | undefined {
    const st = statSync(this.dirFor(id), { bigint: true, throwIfNoEntry: false });
    return st === undefined ? undefined : `${st.ino}:${st.mtimeNs}`;
  }

  /** Forgets one denied key of `id`, or all of them. */
  forget(id: string, fp?: string): void {
    const dir = this.dirFor(id);
    try {
      if (fp === undefined) removeTree(dir);
      else rmSync(join(dir, fileName(fp)), { force: true });
    } catch (err) {
      throw new BrineError('PKI_UNWRITABLE', `cannot delete denied keys of ${id} in ${dir}: ${errorMessage(err)}. Make pki_dir writable by the user running the master`, {
        cause: err,
        details: { id },
      });
    }
  }

  private dirFor(id: string): string {
    assertValidMinionId(id);
    return join(this.deniedDir, HISTORY_DIR, id);
  }
}

function fileName(fp: string): string {
  return `${fp.replace(/:/g, '')}.json`;
}

/**
 * Removes a directory tree that the master may be adding to meanwhile (a minion retrying every
 * acceptance_wait_time gets its key recorded again): the final rmdir then meets ENOTEMPTY, and
 * another pass removes the newcomer too.
 */
function removeTree(dir: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch (err) {
      if (errnoCode(err) !== 'ENOTEMPTY' || attempt >= 10) throw err;
    }
  }
}
