// Salt's minion-process grains (salt/grains/minion_process.py: uid, gid, username, groupname,
// pid), the master grain, and server_id (salt/grains/core.py get_server_id): an integer derived
// from the minion id, used as MySQL's server-id.

import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { parseGroup, parsePasswd } from '../../util/account-db.js';
import { readHostFile } from './read-host-file.js';

export interface AccountFiles {
  passwd: string;
  group: string;
}

/**
 * uid/gid are the effective ids; username is the passwd name of the uid and groupname the name
 * of that user's primary group (Salt's get_default_group), '' when a database has no entry.
 */
export function processGrains(files: AccountFiles = { passwd: '/etc/passwd', group: '/etc/group' }): Record<string, unknown> {
  const uid = process.geteuid?.() ?? -1;
  const gid = process.getegid?.() ?? -1;
  const user = parsePasswd(readHostFile(files.passwd) ?? '').find((u) => u.uid === uid);
  const group = user === undefined ? undefined : parseGroup(readHostFile(files.group) ?? '').find((g) => g.gid === user.gid);
  return { username: user?.name ?? '', groupname: group?.name ?? '', pid: process.pid, gid, uid };
}

/** Salt's master grain: the configured master as written ('' when unset). */
export function masterGrain(master: unknown): { master: unknown } {
  return { master: master ?? '' };
}

/** zlib.adler32, which Node's zlib does not export; a checksum, not a security primitive. */
export function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * Pure: server_id as Salt 3007 computes it (get_server_id since saltstack/salt#57415): the
 * SHA-256 of the id as an integer, modulo 2**31. server_id_use_crc 'crc32' or any other true
 * value (adler32) uses that checksum of the id instead (older Salt releases' option).
 */
export function serverId(id: string, useCrc: unknown): number {
  const bytes = Buffer.from(id, 'utf8');
  // node:zlib only for this rarely set option: a minion's grains load at start (issue 27, 0.2 MiB)
  if (useCrc === 'crc32') return (createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib')).crc32(bytes) >>> 0;
  if (useCrc !== undefined && useCrc !== null && useCrc !== false && useCrc !== '') return adler32(bytes);
  // a number derived from the id, not a security use of the hash
  return Number(BigInt(`0x${createHash('sha256').update(bytes).digest('hex')}`) % 2n ** 31n);
}
