// API tokens (POST /login): random, handed to the client once and stored only as their SHA-256
// in <cachedir>/api-tokens.sqlite (mode 0600), so they survive a master restart but a copy of
// the file logs nobody in. Each token is bound to the master key's fingerprint: after a key
// rotation, every older token is refused.

import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Clock } from '../util/clock.js';
import { BrineError } from '../util/errors.js';

export interface TokenSession {
  user: string;
  eauth: string;
  groups: string[];
  /** Epoch seconds, as Salt's token data. */
  start: number;
  expire: number;
}

const TOKEN_RE = /^[0-9a-f]{64}$/;
const digest = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export class TokenStore {
  private readonly insert: Database.Statement;
  private readonly select: Database.Statement;
  private readonly remove: Database.Statement;
  private readonly removeUser: Database.Statement;
  private readonly removeUserOf: Database.Statement;
  private readonly purge: Database.Statement;

  private constructor(
    private readonly db: Database.Database,
    private readonly clock: Clock,
    private readonly keyFingerprint: string,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS tokens (
      hash TEXT PRIMARY KEY, user TEXT NOT NULL, eauth TEXT NOT NULL, groups TEXT NOT NULL,
      start REAL NOT NULL, expire REAL NOT NULL, key_fingerprint TEXT NOT NULL)`);
    this.insert = db.prepare('INSERT INTO tokens (hash, user, eauth, groups, start, expire, key_fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.select = db.prepare('SELECT user, eauth, groups, start, expire, key_fingerprint AS fp FROM tokens WHERE hash = ?');
    this.remove = db.prepare('DELETE FROM tokens WHERE hash = ?');
    this.removeUser = db.prepare('DELETE FROM tokens WHERE user = ?');
    this.removeUserOf = db.prepare('DELETE FROM tokens WHERE user = ? AND eauth = ?');
    this.purge = db.prepare('DELETE FROM tokens WHERE expire <= ?');
  }

  static open(file: string, clock: Clock, keyFingerprint: string): TokenStore {
    // created 0600 before SQLite opens it; an existing file is tightened
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
    const db = new Database(file);
    try {
      db.pragma('busy_timeout = 5000');
      return new TokenStore(db, clock, keyFingerprint);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** A new token for a logged-in user; the raw token is returned once and never stored. */
  issue(user: string, eauth: string, groups: string[], lifetimeS: number): { token: string; session: TokenSession } {
    const token = randomBytes(32).toString('hex');
    const start = this.clock.now() / 1000;
    const session: TokenSession = { user, eauth, groups, start, expire: start + lifetimeS };
    this.insert.run(digest(token), user, eauth, JSON.stringify(groups), session.start, session.expire, this.keyFingerprint);
    return { token, session };
  }

  /** The session of a token, or TOKEN_INVALID / TOKEN_EXPIRED / TOKEN_KEY_CHANGED. */
  lookup(token: unknown): TokenSession {
    if (typeof token !== 'string' || !TOKEN_RE.test(token)) {
      throw new BrineError(
        'TOKEN_INVALID',
        token === '' || token === null || token === 'null' ? 'the token is empty; log in with POST /login' : 'the token is not one this master issued; log in with POST /login',
      );
    }
    const row = this.select.get(digest(token)) as { user: string; eauth: string; groups: string; start: number; expire: number; fp: string } | undefined;
    if (!row) throw new BrineError('TOKEN_INVALID', 'the token is not one this master issued, or it was revoked by /logout; log in with POST /login');
    if (row.expire <= this.clock.now() / 1000) {
      this.remove.run(digest(token));
      throw new BrineError('TOKEN_EXPIRED', `the token expired at ${new Date(row.expire * 1000).toISOString()}; log in again`);
    }
    if (row.fp !== this.keyFingerprint) throw new BrineError('TOKEN_KEY_CHANGED', 'the token was issued before the master key changed; log in again');
    return { user: row.user, eauth: row.eauth, groups: JSON.parse(row.groups) as string[], start: row.start, expire: row.expire };
  }

  /** Logout: the token is gone. True when it existed. */
  revoke(token: string): boolean {
    if (!TOKEN_RE.test(token)) return false;
    return this.remove.run(digest(token)).changes > 0;
  }

  /** Every token of `user` (of one eauth backend, when given) is gone; how many there were. */
  revokeUser(user: string, eauth?: string): number {
    return (eauth === undefined ? this.removeUser.run(user) : this.removeUserOf.run(user, eauth)).changes;
  }

  purgeExpired(): number {
    return this.purge.run(this.clock.now() / 1000).changes;
  }

  close(): void {
    this.db.close();
  }
}
