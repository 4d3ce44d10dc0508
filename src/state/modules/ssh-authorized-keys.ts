// A user's authorized_keys file as Salt's salt/modules/ssh.py reads and edits it: where it is
// (config relative to the home, %h/%u expanded), the keys it holds (options, enc, key, comment),
// and the three edits (add a line, replace a key's line, remove a key's lines), each written as
// Salt writes it, including the "<enc> <key> <comment>\n" line format.

import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { findUser, type PasswdEntry, readPasswd } from '../../modules/user-db.js';
import { writeAtomic } from './file-write.js';

export interface AuthKey {
  enc: string;
  comment: string;
  options: string[];
}

const LINE = /^(.*?)\s?((?:sk-)?(?:ssh-|ecds)[\w-]+\s.+)$/;

/** Salt's _refine_enc: the key type names it accepts, as written in the file. */
export function refineEnc(enc: string): string {
  const e = enc.toLowerCase();
  if (['rsa', 'ssh-rsa'].includes(e)) return 'ssh-rsa';
  if (['dsa', 'dss', 'ssh-dss'].includes(e)) return 'ssh-dss';
  if (['ecdsa', 'ecdsa-sha2-nistp256'].includes(e)) return 'ecdsa-sha2-nistp256';
  if (e === 'ecdsa-sha2-nistp384') return e;
  if (e === 'ecdsa-sha2-nistp521') return e;
  if (['ed25519', 'ssh-ed25519'].includes(e)) return 'ssh-ed25519';
  if (['sk-ecdsa', 'sk-ecdsa-sha2-nistp256@openssh.com'].includes(e)) return 'sk-ecdsa-sha2-nistp256@openssh.com';
  if (['sk-ed25519', 'sk-ssh-ed25519@openssh.com'].includes(e)) return 'sk-ssh-ed25519@openssh.com';
  throw new Error(`Incorrect encryption key type '${enc}'.`);
}

/** Salt's _format_auth_line (an empty comment leaves a trailing space, as Salt writes it). */
export function formatAuthLine(key: string, enc: string, comment: string, options: readonly string[]): string {
  return `${options.length > 0 ? `${options.join(',')} ` : ''}${enc} ${key} ${comment}\n`;
}

/** A key Salt accepts: strict base64 (its _fingerprint decodes with validate=True). */
export function validKey(key: string): boolean {
  return key.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(key);
}

/** The lines of a file, each stripped and given one newline; blank lines dropped (as Salt reads). */
function cleanLines(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => `${l}\n`);
}

/** Salt's auth_keys/_validate_keys: key → its enc, comment and options. */
export function readAuthKeys(file: string): Map<string, AuthKey> {
  const out = new Map<string, AuthKey>();
  for (const line of cleanLines(file)) {
    if (line.startsWith('#')) continue;
    const m = LINE.exec(line.replace(/\n$/, ''));
    if (!m) continue;
    const comps = m[2]!.split(/\s+/).filter((c) => c !== '');
    if (comps.length < 2 || !validKey(comps[1]!)) continue;
    out.set(comps[1]!, { enc: comps[0]!, comment: comps.slice(2).join(' '), options: m[1] ? m[1].split(',') : [] });
  }
  return out;
}

export interface KeyFile {
  user: PasswdEntry;
  path: string;
}

/** Salt's _get_config_file: %h, %u and %% expanded; a relative config is under the user's home. */
export async function keyFile(fun: string, user: string, config: string): Promise<KeyFile> {
  const u = findUser(await readPasswd(fun), user);
  if (!u) throw new Error(`User '${user}' does not exist`);
  const expanded = config.replace(/%(.)/g, (all, c: string) => (c === 'h' ? u.home : c === 'u' ? u.name : c === '%' ? '%' : all));
  return { user: u, path: path.isAbsolute(expanded) ? expanded : path.join(u.home, expanded) };
}

/** Salt's check_key: 'add', 'update' (present with another line) or 'exists'. */
export function checkKey(file: string, key: string, enc: string, comment: string, options: readonly string[]): 'add' | 'update' | 'exists' {
  const current = readAuthKeys(file).get(key);
  if (!current) return 'add';
  return formatAuthLine(key, current.enc, current.comment, current.options) !== formatAuthLine(key, refineEnc(enc), comment, options) ? 'update' : 'exists';
}

function ownAndMode(p: string, kf: KeyFile, mode: number): void {
  if (process.geteuid?.() === 0) chownSync(p, kf.user.uid, kf.user.gid);
  chmodSync(p, mode);
}

/** Salt's set_auth_key: 'new', 'replace', 'no change', 'invalid', 'Invalid public key' or 'fail'. */
export async function setAuthKey(kf: KeyFile, key: string, enc: string, comment: string, options: readonly string[]): Promise<string> {
  if (key.trim().split(/\s+/).length > 1) return 'invalid';
  const refined = refineEnc(enc);
  if (!validKey(key)) return 'Invalid public key';
  const status = checkKey(kf.path, key, refined, comment, options);
  const line = formatAuthLine(key, refined, comment, options);
  if (status === 'exists') return 'no change';
  if (status === 'update') {
    const lines = cleanLines(kf.path).map((l) => {
      if (l.startsWith('#')) return l;
      const m = /((.*)\s)?((?:sk-)?(?:ssh-|ecds)[\w-]+)\s([a-zA-Z0-9+/]+={0,2})(\s(.*))?/.exec(l);
      return m && m[4] === key ? line : l;
    });
    await writeAtomic(kf.path, lines.join(''));
    return 'replace';
  }
  const home = kf.user.home;
  if (kf.path.startsWith(home) && !statSync(home, { throwIfNoEntry: false })?.isDirectory()) return 'fail';
  const dir = path.dirname(kf.path);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    mkdirSync(dir, { recursive: true });
    ownAndMode(dir, kf, 0o700);
  }
  const isNew = !existsSync(kf.path);
  let text = isNew ? '' : readFileSync(kf.path, 'utf8');
  if (text !== '' && !text.endsWith('\n')) text += '\n';
  await writeAtomic(kf.path, text + line);
  if (isNew) ownAndMode(kf.path, kf, 0o600);
  return 'new';
}

/** Salt's rm_auth_key: 'Key removed', 'Key not present' or 'Authorized keys file X not present'. */
export async function rmAuthKey(kf: KeyFile, key: string): Promise<string> {
  if (!readAuthKeys(kf.path).has(key)) return 'Key not present';
  if (!statSync(kf.path, { throwIfNoEntry: false })?.isFile()) return `Authorized keys file ${kf.path} not present`;
  const kept: string[] = [];
  for (const line of cleanLines(kf.path)) {
    if (line.startsWith('#')) {
      kept.push(line);
      continue;
    }
    const m = LINE.exec(line.replace(/\n$/, ''));
    if (!m) continue;
    const comps = m[2]!.split(/\s+/).filter((c) => c !== '');
    if (comps.length >= 2 && comps[1] === key) continue;
    kept.push(line);
  }
  await writeAtomic(kf.path, kept.join(''));
  return 'Key removed';
}

/** Splits a state name the way ssh_auth does: `[options] <enc> <key> [comment]` or `<key> [comment]`. */
export function parseKeyName(name: string, defaults: { enc: string; comment: string; options: string[] }): { key: string; enc: string; comment: string; options: string[] } {
  const m = LINE.exec(name);
  if (!m) {
    const [key, ...rest] = name.trim().split(/\s+/);
    const restText = name
      .trim()
      .slice((key ?? '').length)
      .trim();
    return { key: key ?? '', enc: defaults.enc, comment: rest.length > 0 ? restText : defaults.comment, options: defaults.options };
  }
  const body = m[2]!.trim();
  const first = body.split(/\s+/, 2);
  const after = body.slice(body.indexOf(first[1]!) + first[1]!.length).trim();
  return { key: first[1]!, enc: first[0]!, comment: after !== '' ? after : defaults.comment, options: m[1] ? m[1].split(',') : defaults.options };
}
