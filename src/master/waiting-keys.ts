// Limits on keys that wait for an operator (threats.md #25, #33): pending keys in total and per
// source address, and how many IDs one key may wait under (pending or denied), so one peer cannot
// squat thousands of IDs or fill the disk. An in-memory ledger of the store, rebuilt from disk
// whenever the pending or denied directory changed behind the master's back (`brine key`).

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { KEY_STATE_DIRS, type KeyEffect, type KeyStore } from '../pki/index.js';
import { sourceKey } from '../transport/index.js';

export interface WaitingKeyLimits {
  /** max_pending_keys; 0 = unlimited */
  maxPending: number;
  /** max_pending_keys_per_address; 0 = unlimited */
  maxPendingPerAddress: number;
  /** max_ids_per_key; 0 = unlimited */
  maxIdsPerKey: number;
}

export class WaitingKeyLedger {
  /** pending ID -> its key's fingerprint and the host it came from (unknown for keys found on disk) */
  private pending = new Map<string, { fingerprint: string; host?: string }>();
  /** fingerprint -> IDs under which that key is pending or denied */
  private idsByKey = new Map<string, Set<string>>();
  /** host -> how many of the pending keys came from it (max_pending_keys_per_address) */
  private pendingByHost = new Map<string, number>();
  private seen = '';

  constructor(
    private readonly keys: KeyStore,
    private readonly limits: WaitingKeyLimits,
  ) {}

  /** Why `fingerprint` may not be stored as a new pending/denied key of `id` now, or undefined. */
  admit(id: string, fingerprint: string, state: 'pending' | 'denied', remote: string): string | undefined {
    this.refresh();
    const { maxPending, maxPendingPerAddress, maxIdsPerKey } = this.limits;
    const otherIds = [...(this.idsByKey.get(fingerprint) ?? [])].filter((other) => other !== id);
    if (maxIdsPerKey > 0 && otherIds.length >= maxIdsPerKey) {
      return `this key already waits for an operator under ${otherIds.length} other IDs (max_ids_per_key is ${maxIdsPerKey}); one host needs one ID. An operator can review them with 'brine key -L' and delete the unwanted ones with 'brine key -d'.`;
    }
    if (state === 'denied') return undefined;
    if (maxPending > 0 && this.pending.size >= maxPending) {
      return `${this.pending.size} keys are already pending (max_pending_keys is ${maxPending}). An operator must accept or delete pending keys ('brine key -L') or raise max_pending_keys.`;
    }
    const host = sourceKey(remote);
    if (maxPendingPerAddress > 0) {
      const fromHost = this.pendingByHost.get(host) ?? 0;
      if (fromHost >= maxPendingPerAddress) {
        return `${fromHost} keys from ${host} are already pending (max_pending_keys_per_address is ${maxPendingPerAddress}). An operator must accept or delete them ('brine key -L') or raise max_pending_keys_per_address.`;
      }
    }
    return undefined;
  }

  /**
   * Records what a sign-in just wrote, so the next admit() counts it without re-reading the store.
   * The caller calls refresh() before applying the effects: a change by an operator is then already
   * read, and the new stamp covers only our own writes.
   */
  applied(effects: readonly KeyEffect[], fingerprint: string, remote: string): void {
    if (effects.length === 0) return;
    for (const e of effects) {
      if (e.op === 'write' && e.state === 'pending') {
        this.setPending(e.id, { fingerprint, host: sourceKey(remote) });
      } else if (e.op === 'write' && e.state === 'denied') {
        this.link(fingerprint, e.id);
      } else if ((e.op === 'move' && e.from === 'pending') || (e.op === 'remove' && e.state === 'pending')) {
        const was = this.dropPending(e.id);
        if (was) this.idsByKey.get(was.fingerprint)?.delete(e.id);
      }
    }
    this.seen = this.stamp(); // our own writes are already counted
  }

  /** Rebuilds the ledger from disk when the pending or denied directory changed since last time. */
  refresh(): void {
    this.sync();
  }

  /** How many keys are pending, in total and from one host (for tests and diagnostics). */
  pendingCount(host?: string): number {
    return host === undefined ? this.pending.size : (this.pendingByHost.get(host) ?? 0);
  }

  private setPending(id: string, entry: { fingerprint: string; host?: string }): void {
    this.dropPending(id);
    this.pending.set(id, entry);
    if (entry.host !== undefined) this.pendingByHost.set(entry.host, (this.pendingByHost.get(entry.host) ?? 0) + 1);
    this.link(entry.fingerprint, id);
  }

  private dropPending(id: string): { fingerprint: string; host?: string } | undefined {
    const was = this.pending.get(id);
    if (!was) return undefined;
    this.pending.delete(id);
    if (was.host !== undefined) {
      const n = (this.pendingByHost.get(was.host) ?? 1) - 1;
      if (n > 0) this.pendingByHost.set(was.host, n);
      else this.pendingByHost.delete(was.host);
    }
    return was;
  }

  private link(fingerprint: string, id: string): void {
    let ids = this.idsByKey.get(fingerprint);
    if (!ids) {
      ids = new Set();
      this.idsByKey.set(fingerprint, ids);
    }
    ids.add(id);
  }

  /** Rebuilds the ledger from disk when the pending or denied directory changed since last time. */
  private sync(): void {
    const now = this.stamp();
    if (now === this.seen) return;
    this.seen = now;
    const previous = this.pending;
    this.pending = new Map();
    this.pendingByHost = new Map();
    this.idsByKey = new Map();
    for (const id of this.keys.list('pending')) {
      let fp: string | undefined;
      try {
        fp = this.keys.fingerprintOf('pending', id);
      } catch {
        fp = undefined;
      }
      if (fp === undefined) continue;
      const before = previous.get(id);
      // the address is known only for keys this master stored itself since it started
      this.setPending(id, before?.fingerprint === fp && before.host !== undefined ? { fingerprint: fp, host: before.host } : { fingerprint: fp });
    }
    for (const id of this.keys.list('denied')) for (const k of this.keys.deniedKeys(id)) this.link(k.fingerprint, id);
  }

  private stamp(): string {
    const dirs = [KEY_STATE_DIRS.get('pending')!, KEY_STATE_DIRS.get('denied')!, join(KEY_STATE_DIRS.get('denied')!, '.keys')];
    return dirs
      .map((d) => {
        try {
          const st = statSync(join(this.keys.pkiDir, d));
          return `${st.ino}:${st.mtimeMs}`;
        } catch {
          return '-';
        }
      })
      .join('|');
  }
}
