// ssh_auth.present / ssh_auth.absent: a public key is (or is not) in a user's authorized_keys
// file. Comments and changes follow Salt's salt/states/ssh_auth.py; the file edits are in
// ssh-authorized-keys.ts.

import { readFile } from 'node:fs/promises';
import type { StateContext, StateResult } from '../types.js';
import { defineState } from '../types.js';
import { checkKey, type KeyFile, keyFile, parseKeyName, rmAuthKey, setAuthKey } from './ssh-authorized-keys.js';
import { errorMessage } from '../../util/errors.js';

const PARAMS = [
  { name: 'name', type: 'string', required: true, doc: 'the public key ([options] [enc] key [comment] may all be given here)' },
  { name: 'user', type: 'string', required: true, doc: 'the user whose authorized keys file is edited' },
  { name: 'enc', type: 'string', default: 'ssh-rsa', doc: 'key type: ssh-rsa, ssh-dss, ecdsa, ssh-ed25519 ...' },
  { name: 'comment', type: 'string', default: '', doc: 'comment written after the key' },
  { name: 'source', type: 'string', default: '', doc: 'a file (salt:// or local) of keys, one per line; enc and comment are then ignored' },
  { name: 'options', type: 'list', doc: 'key options, e.g. no-pty' },
  { name: 'config', type: 'string', default: '.ssh/authorized_keys', doc: 'the file, relative to the home; %h and %u are expanded' },
  { name: 'fingerprint_hash_type', type: 'string', doc: 'accepted for Salt compatibility (keys are compared, not fingerprints)' },
] as const;

/** The text of `source` (a salt:// URL fetched through the file client, or a local path). */
async function sourceText(ctx: StateContext, source: string): Promise<string | undefined> {
  if (source.startsWith('salt://')) {
    const files = ctx.exec.files;
    if (!files) return undefined;
    const cached = await files.cacheFile(source, ctx.saltenv).catch(() => undefined);
    return cached ? readFile(cached.localPath, 'utf8') : undefined;
  }
  return readFile(source.replace(/^file:\/\//, ''), 'utf8').catch(() => undefined);
}

/** The `<enc> <key> [comment]` lines of a source file (options lines are kept whole). */
function sourceKeys(text: string): { key: string; enc: string; comment: string; options: string[] }[] {
  return text
    .trimEnd()
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => parseKeyName(l.trim(), { enc: 'ssh-rsa', comment: '', options: [] }));
}

export const sshAuthPresent = defineState({
  name: 'ssh_auth.present',
  // Salt's ssh_auth.present takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: "Make sure an SSH public key is in a user's authorized_keys file.",
  params: [...PARAMS],
  example: 'AAAAB3NzaC1kc3MAAACBAL0sQ9fJ5bYTEyY==:\n  ssh_auth.present:\n    - user: root\n    - enc: ssh-dss',
  run: async (ctx, { named: a }): Promise<StateResult> => {
    const ret: StateResult = { name: a.name, result: true, changes: {}, comment: '' };
    // test=True: Salt's check_key reads no keys for a user that does not exist (yet), so the key
    // is one to add; a real run fails with the reason
    let kf: KeyFile | undefined;
    let noUser = '';
    try {
      kf = await keyFile('ssh_auth.present', a.user, a.config);
    } catch (err) {
      noUser = errorMessage(err);
    }
    if (kf === undefined && !ctx.test) return { ...ret, result: false, comment: noUser };
    const status = (k: { key: string; enc: string; comment: string; options: readonly string[] }) => (kf ? checkKey(kf.path, k.key, k.enc, k.comment, k.options) : 'add');
    if (a.source !== '') {
      const text = await sourceText(ctx, a.source);
      if (text === undefined) {
        // Salt's test=True reads a missing source as no keys (check_key_file returns {}), so nothing to add
        if (ctx.test) return { ...ret, comment: `All host keys in file ${a.source} are already present` };
        return { ...ret, result: false, comment: `Failed to add the ssh key. Source file ${a.source} is missing` };
      }
      const keys = sourceKeys(text);
      if (ctx.test) {
        const pending = keys.map((k) => [k.key, status(k)] as const).filter(([, s]) => s !== 'exists');
        if (pending.length > 0) return { ...ret, result: null, comment: pending.map(([k, s]) => `Set to ${s}: ${k}\n`).join('') };
        return { ...ret, comment: `All host keys in file ${a.source} are already present` };
      }
      if (kf === undefined) return { ...ret, result: false, comment: noUser };
      let data = 'no change';
      for (const k of keys) {
        const r = await setAuthKey(kf, k.key, k.enc, k.comment, k.options);
        if (r !== 'no change') data = r;
      }
      return finish(ret, data, a.name, a.user, a.source);
    }
    const k = parseKeyName(a.name, { enc: a.enc, comment: a.comment, options: (a.options ?? []).map(String) });
    if (ctx.test) {
      const st = status(k);
      if (st === 'update') return { ...ret, result: null, comment: `Key ${k.key} for user ${a.user} is set to be updated` };
      if (st === 'add') return { ...ret, result: null, comment: `Key ${k.key} for user ${a.user} is set to be added` };
      return { ...ret, comment: `The authorized host key ${k.key} is already present for user ${a.user}` };
    }
    if (kf === undefined) return { ...ret, result: false, comment: noUser };
    return finish(ret, await setAuthKey(kf, k.key, k.enc, k.comment, k.options), k.key, a.user, a.source);
  },
});

/** Salt's mapping of set_auth_key's answer to the state's return. */
function finish(ret: StateResult, data: string, key: string, user: string, source: string): StateResult {
  switch (data) {
    case 'replace':
      return { ...ret, changes: { [key]: 'Updated' }, comment: `The authorized host key ${key} for user ${user} was updated` };
    case 'no change':
      return { ...ret, comment: `The authorized host key ${key} is already present for user ${user}` };
    case 'new':
      return { ...ret, changes: { [key]: 'New' }, comment: `The authorized host key ${key} for user ${user} was added` };
    case 'fail':
      return { ...ret, result: false, comment: 'Failed to add the ssh key. Is the home directory available, and/or does the key file exist?' };
    case 'invalid':
    case 'Invalid public key':
      return { ...ret, result: false, comment: 'Invalid public ssh key, most likely has spaces or invalid syntax' };
    default:
      return { ...ret, result: false, comment: `Failed to add the ssh key from ${source}: ${data}` };
  }
}

export const sshAuthAbsent = defineState({
  name: 'ssh_auth.absent',
  doc: "Make sure an SSH public key is not in a user's authorized_keys file.",
  params: [...PARAMS],
  example: 'AAAAB3NzaC1kc3MAAACBAL0sQ9fJ5bYTEyY==:\n  ssh_auth.absent:\n    - user: root',
  run: async (ctx, { named: a }): Promise<StateResult> => {
    const ret: StateResult = { name: a.name, result: true, changes: {}, comment: '' };
    // test=True: Salt's check_key reads no keys for a user that does not exist (yet), so the key
    // is one to add; a real run fails with the reason
    let kf: KeyFile | undefined;
    let noUser = '';
    try {
      kf = await keyFile('ssh_auth.absent', a.user, a.config);
    } catch (err) {
      noUser = errorMessage(err);
    }
    if (kf === undefined && !ctx.test) return { ...ret, result: false, comment: noUser };
    const status = (k: { key: string; enc: string; comment: string; options: readonly string[] }) => (kf ? checkKey(kf.path, k.key, k.enc, k.comment, k.options) : 'add');
    const keys = a.source !== '' ? sourceKeys((await sourceText(ctx, a.source)) ?? '') : [parseKeyName(a.name, { enc: a.enc, comment: a.comment, options: (a.options ?? []).map(String) })];
    if (ctx.test) {
      if (a.source !== '') {
        const present = keys.filter((k) => status(k) !== 'add');
        if (present.length > 0) return { ...ret, result: null, comment: present.map((k) => `Set to remove: ${k.key}\n`).join('') };
        return { ...ret, comment: `All host keys in file ${a.source} are already absent` };
      }
      const k = keys[0]!;
      if (status(k) === 'add') return { ...ret, comment: 'Key is already absent' };
      return { ...ret, result: null, comment: `Key ${k.key} for user ${a.user} is set for removal` };
    }
    if (kf === undefined) return { ...ret, result: false, comment: noUser };
    let comment = 'Key not present';
    let removedKey: string | undefined;
    for (const k of keys) {
      comment = await rmAuthKey(kf, k.key);
      if (comment === 'Key removed') removedKey = k.key;
    }
    if (comment === 'User authorized keys file not present') return { ...ret, result: false, comment };
    const changed = a.source !== '' ? removedKey !== undefined : comment === 'Key removed';
    return { ...ret, comment, changes: changed ? { [a.source !== '' ? a.name : keys[0]!.key]: 'Removed' } : {} };
  },
});
