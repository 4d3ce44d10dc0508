// key.finger and key.finger_master (salt/modules/key.py): this minion's own key fingerprint and
// the one of the master key it trusts, in the form `brine key -f` / `brine key -F master` print
// on the master (SHA-256 of the public key, colon-separated hex), so an operator compares them
// without logging in to both. A key file that is not there gives '', as Salt's pem_finger does.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fingerprint } from '../pki/fingerprint.js';
import { MASTER_PIN_DIR, parseMasterEndpoint, pinFileName } from '../pki/master-pin-file.js';
import { BrineError } from '../util/errors.js';
import { defineFunction, defineParams } from './define-function.js';
import type { ExecContext, ModuleFunction } from './types.js';

const PARAMS = defineParams([{ name: 'hash_type', type: 'string', doc: "only sha256 (Salt's default hash_type): brine's key fingerprints are SHA-256" }]);

function checkHashType(fun: string, hashType: string | undefined): void {
  if (hashType !== undefined && hashType.toLowerCase() !== 'sha256')
    throw new BrineError('BAD_ARGUMENTS', `${fun}: brine fingerprints keys with sha256 only, got hash_type=${hashType}; leave hash_type out`);
}

function fingerOf(file: string): string {
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new BrineError('EXEC_FAILED', `cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  return fingerprint(pem);
}

function pkiDir(ctx: ExecContext): string {
  const dir = ctx.config.pki_dir;
  if (typeof dir !== 'string' || dir === '') throw new BrineError('EXEC_FAILED', 'key.*: this minion has no pki_dir configured');
  return dir;
}

/** The pin of the first configured master that has one (the masters of one minion usually share a key). */
function masterPin(ctx: ExecContext): string {
  const dir = pkiDir(ctx);
  const entries = ctx.config.master;
  const list = (Array.isArray(entries) ? entries : [entries]).filter((m): m is string => typeof m === 'string' && m !== '');
  const port = typeof ctx.config.master_port === 'number' ? ctx.config.master_port : 4506;
  for (const entry of list) {
    const fp = fingerOf(path.join(dir, MASTER_PIN_DIR, pinFileName(parseMasterEndpoint(entry, port))));
    if (fp !== '') return fp;
  }
  // before per-master pins: Salt's own file name
  return fingerOf(path.join(dir, 'minion_master.pub'));
}

export const keyFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'key.finger',
    doc: "This minion's public key fingerprint (pki_dir/minion.pub), as `brine key -f <id>` shows it on the master.",
    params: PARAMS,
    run: (ctx, a) => {
      checkHashType('key.finger', a.named.hash_type);
      return fingerOf(path.join(pkiDir(ctx), 'minion.pub'));
    },
  }),
  defineFunction({
    name: 'key.finger_master',
    doc: "The fingerprint of the master key this minion trusts (its pin in pki_dir/masters), as `brine key -F master` shows it on the master; '' before the first sign-in.",
    params: PARAMS,
    run: (ctx, a) => {
      checkHashType('key.finger_master', a.named.hash_type);
      return masterPin(ctx);
    },
  }),
];
