// external_auth as Salt writes it: {backend: {user | 'group%' | '*': [ACL entries], '^option': value}}
// and the two backends brine has: `file` (Salt's text/htpasswd file eauth) and `pam` (through the
// optional authenticate-pam binding).

import { createHash, getHashes, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BrineError, errorMessage } from '../util/errors.js';
import type { AclEntry } from './acl.js';
import { htpasswdVerify } from './htpasswd.js';
import { systemGroups } from './system-groups.js';

export interface EauthBackend {
  readonly name: string;
  /** True for the right password; false for a wrong one or an unknown user. */
  authenticate(user: string, password: string, remoteHost: string): Promise<boolean>;
  /** Groups for 'group%' keys. */
  groups(user: string): string[];
  /**
   * Whether the user still exists, checked cheaply on every request of a token; absent for a
   * backend that cannot tell without a password (pam), whose tokens last until revoked or expired.
   */
  hasUser?(user: string): boolean;
}

export interface EauthConfig {
  backend: EauthBackend;
  /** user / 'group%' / '*' -> entries */
  acl: Record<string, AclEntry[]>;
}

/** Options of the file backend that Salt writes with a leading ^ (brine also takes them without). */
const FILE_OPTIONS = new Set(['filename', 'filetype', 'hashtype', 'field_separator', 'username_field', 'password_field']);
const PAM_OPTIONS = new Set(['service']);
const MAX_FILE_BYTES = 16 * 1024 * 1024;

const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

function configError(msg: string): BrineError {
  return new BrineError('EAUTH_CONFIG', `external_auth: ${msg}`);
}

export interface FileEauthOptions {
  filename: string;
  filetype: 'text' | 'htpasswd';
  hashtype: string;
  fieldSeparator: string;
  usernameField: number;
  passwordField: number;
}

export class FileEauth implements EauthBackend {
  readonly name = 'file';
  /** The file's users and password fields, and the stat they were read under. */
  private cache: { stamp: string; users: Map<string, string | undefined> } | undefined;
  constructor(readonly opts: FileEauthOptions) {}

  /**
   * The users of the file and their password fields. Every call stats the file and reads it
   * again only when its inode, size, mtime or ctime changed, so an edit applies at the next
   * login and at the next request of an existing token (a removed user's token is refused),
   * for the cost of one stat per request.
   */
  private entries(): Map<string, string | undefined> {
    let stamp: string;
    try {
      const st = statSync(this.opts.filename, { bigint: true });
      if (st.size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
      stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
      if (this.cache?.stamp === stamp) return this.cache.users;
      this.cache = { stamp, users: this.parse(readFileSync(this.opts.filename, 'utf8')) };
      return this.cache.users;
    } catch (err) {
      this.cache = undefined;
      throw configError(`file: cannot read ^filename ${this.opts.filename} (${errorMessage(err)}); fix the path or its permissions`);
    }
  }

  private parse(text: string): Map<string, string | undefined> {
    const users = new Map<string, string | undefined>();
    const htpasswd = this.opts.filetype === 'htpasswd';
    for (const raw of text.split('\n')) {
      const line = raw.replace(/\r$/, '').trim();
      if (line === '' || line.startsWith('#')) continue;
      let user: string | undefined;
      let password: string | undefined;
      if (htpasswd) {
        const i = line.indexOf(':');
        if (i <= 0) continue;
        user = line.slice(0, i);
        password = line.slice(i + 1);
      } else {
        const fields = line.split(this.opts.fieldSeparator);
        user = fields[this.opts.usernameField - 1];
        password = fields[this.opts.passwordField - 1];
      }
      // the first line of a user counts, as when the file was scanned per login
      if (user !== undefined && !users.has(user)) users.set(user, password);
    }
    return users;
  }

  /** The password field of `user` in the file as it is now. */
  private storedPassword(user: string): string | undefined {
    return this.entries().get(user);
  }

  /** True while `user` has a line in the file (EAUTH_CONFIG when the file cannot be read). */
  hasUser(user: string): boolean {
    return this.entries().has(user);
  }

  async authenticate(user: string, password: string): Promise<boolean> {
    const stored = this.storedPassword(user);
    if (stored === undefined) return false;
    if (this.opts.filetype === 'htpasswd') return htpasswdVerify(password, stored, user);
    if (this.opts.hashtype === 'plaintext') return same(password, stored);
    const digest = createHash(this.opts.hashtype).update(password, 'utf8').digest('hex');
    return same(digest, stored.toLowerCase());
  }

  groups(): string[] {
    return [];
  }
}

type PamModule = {
  authenticate(user: string, password: string, cb: (err?: unknown) => void, opts?: { serviceName?: string; remoteHost?: string }): void;
};

export type PamLoader = () => PamModule;

const defaultPamLoader: PamLoader = () => createRequire(import.meta.url)('authenticate-pam') as PamModule;

export class PamEauth implements EauthBackend {
  readonly name = 'pam';
  private module: PamModule | undefined;
  constructor(
    private readonly service: string,
    private readonly load: PamLoader = defaultPamLoader,
  ) {}

  private binding(): PamModule {
    if (this.module) return this.module;
    try {
      const m = this.load();
      if (typeof m?.authenticate !== 'function') throw new Error('it has no authenticate() function');
      this.module = m;
      return m;
    } catch (err) {
      throw new BrineError(
        'EAUTH_UNAVAILABLE',
        `eauth pam is configured but the PAM binding authenticate-pam cannot be loaded (${errorMessage(err).split('\n')[0]}); install it (npm install authenticate-pam, which needs libpam0g-dev and a C++ compiler) or use eauth file`,
      );
    }
  }

  authenticate(user: string, password: string, remoteHost: string): Promise<boolean> {
    const pam = this.binding();
    return new Promise((resolve) => {
      try {
        pam.authenticate(user, password, (err) => resolve(!err), { serviceName: this.service, remoteHost });
      } catch {
        resolve(false);
      }
    });
  }

  groups(user: string): string[] {
    return systemGroups(user);
  }
}

function optionOf(section: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(section, `^${name}`)) return section[`^${name}`];
  // without the ^ only when it cannot be a user's ACL (a user's value is a list)
  if (Object.hasOwn(section, name) && !Array.isArray(section[name])) return section[name];
  return undefined;
}

function intOption(section: Record<string, unknown>, name: string, dflt: number): number {
  const v = optionOf(section, name) ?? dflt;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw configError(`file: ^${name} must be a field number from 1, not ${JSON.stringify(v)}`);
  return n;
}

function fileBackend(section: Record<string, unknown>): FileEauth {
  const filename = optionOf(section, 'filename');
  if (typeof filename !== 'string' || filename === '') throw configError('file: ^filename is required (the path of the text or htpasswd file)');
  const filetype = optionOf(section, 'filetype') ?? 'text';
  if (filetype !== 'text' && filetype !== 'htpasswd') {
    throw configError(`file: ^filetype ${JSON.stringify(filetype)} is not supported; use text or htpasswd${filetype === 'htdigest' ? ' (htdigest files are not supported)' : ''}`);
  }
  const hashtype = String(optionOf(section, 'hashtype') ?? 'plaintext').toLowerCase();
  if (hashtype !== 'plaintext' && !getHashes().includes(hashtype)) throw configError(`file: ^hashtype ${hashtype} is not a hash this system has; use plaintext, md5, sha1, sha256 or sha512`);
  const sep = optionOf(section, 'field_separator') ?? ':';
  if (typeof sep !== 'string' || sep === '') throw configError('file: ^field_separator must be a non-empty string');
  return new FileEauth({ filename, filetype, hashtype, fieldSeparator: sep, usernameField: intOption(section, 'username_field', 1), passwordField: intOption(section, 'password_field', 2) });
}

/** Reads external_auth, refusing what brine cannot use (EAUTH_CONFIG) at master start. */
export function parseExternalAuth(raw: Record<string, unknown>, pamLoader?: PamLoader): Map<string, EauthConfig> {
  const out = new Map<string, EauthConfig>();
  for (const name of Object.keys(raw)) {
    const section = raw[name];
    if (typeof section !== 'object' || section === null || Array.isArray(section)) throw configError(`${name} must be a mapping of users to ACL lists`);
    const sec = section as Record<string, unknown>;
    const known = name === 'file' ? FILE_OPTIONS : name === 'pam' ? PAM_OPTIONS : undefined;
    if (!known) throw configError(`backend ${JSON.stringify(name)} is not one brine has; use file or pam`);
    const acl: Record<string, AclEntry[]> = {};
    for (const key of Object.keys(sec)) {
      const value = sec[key];
      if (key.startsWith('^') || (known.has(key) && !Array.isArray(value))) {
        if (!known.has(key.replace(/^\^/, ''))) throw configError(`${name}: unknown option ${key}; ${name} takes ${[...known].map((k) => `^${k}`).join(', ') || 'no options'}`);
        continue;
      }
      if (!Array.isArray(value)) throw configError(`${name}: the ACL of ${JSON.stringify(key)} must be a list of entries (e.g. ['test.*', '@runner'])`);
      for (const e of value) {
        if (typeof e !== 'string' && (typeof e !== 'object' || e === null || Array.isArray(e)))
          throw configError(`${name}: ${JSON.stringify(key)} has an entry that is neither a string nor a mapping: ${JSON.stringify(e)}`);
      }
      acl[key] = value as AclEntry[];
    }
    const backend = name === 'file' ? fileBackend(sec) : new PamEauth(String(optionOf(sec, 'service') ?? 'login'), pamLoader);
    out.set(name, { backend, acl });
  }
  return out;
}
