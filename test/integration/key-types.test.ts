// Issue 8 point 7: a real master refuses client certificates whose key is of a type brine does
// not make (RSA-1024, RSA-2048, RSA-PSS, Ed448, P-384, explicit-parameter EC), presented over
// TLS by a raw client. Each is refused with KEY_TYPE_UNSUPPORTED (or already by TLS) and nothing
// is written to the key store, not even with auto_accept; an EC P-256 key still works.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cluster } from '../helpers/cluster.js';
import { RawClient } from '../helpers/raw-client.js';
import type { Identity } from '../../src/pki/index.js';

/** openssl arguments making a key and a self-signed certificate of each refused type. */
const REFUSED: Array<[string, string[][]]> = [
  ['RSA-1024', [['req', '-x509', '-newkey', 'rsa:1024', '-keyout', 'KEY', '-out', 'CERT', '-nodes', '-subj', '/CN=t', '-days', '1']]],
  ['RSA-2048', [['req', '-x509', '-newkey', 'rsa:2048', '-keyout', 'KEY', '-out', 'CERT', '-nodes', '-subj', '/CN=t', '-days', '1']]],
  ['RSA-PSS', [['req', '-x509', '-newkey', 'rsa-pss', '-pkeyopt', 'rsa_keygen_bits:2048', '-keyout', 'KEY', '-out', 'CERT', '-nodes', '-subj', '/CN=t', '-days', '1']]],
  ['Ed448', [['req', '-x509', '-newkey', 'ed448', '-keyout', 'KEY', '-out', 'CERT', '-nodes', '-subj', '/CN=t', '-days', '1']]],
  ['P-384', [['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384', '-keyout', 'KEY', '-out', 'CERT', '-nodes', '-subj', '/CN=t', '-days', '1']]],
  [
    'P-256 with explicit parameters',
    [
      ['ecparam', '-name', 'prime256v1', '-param_enc', 'explicit', '-genkey', '-noout', '-out', 'KEY'],
      ['req', '-x509', '-key', 'KEY', '-out', 'CERT', '-subj', '/CN=t', '-days', '1'],
    ],
  ],
];

function haveOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('key types the master accepts (issue 8 point 7)', { skip: haveOpenssl() ? false : 'needs the openssl command to make certificates of other key types' }, () => {
  let cluster: Cluster;
  let scratch: string;
  let pkiDir: string;

  /** A certificate and key of the given kind, made by openssl in its own directory. */
  function makeIdentity(name: string, steps: string[][]): Identity {
    const dir = fs.mkdtempSync(path.join(scratch, 'id-'));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    for (const step of steps)
      execFileSync(
        'openssl',
        step.map((a) => (a === 'KEY' ? key : a === 'CERT' ? cert : a)),
        { stdio: 'ignore' },
      );
    return { privateKeyPem: fs.readFileSync(key, 'utf8'), certPem: fs.readFileSync(cert, 'utf8'), publicKeyPem: '', fingerprint: name, paths: { key, pub: '', cert } };
  }

  /** Every file and directory under the key-state directories (dot-directories included). */
  function storeContents(): string[] {
    const out: string[] = [];
    for (const dir of ['minions', 'minions_pre', 'minions_rejected', 'minions_denied']) {
      const walk = (p: string): void => {
        for (const e of fs.readdirSync(p, { withFileTypes: true })) {
          out.push(path.relative(pkiDir, path.join(p, e.name)));
          if (e.isDirectory()) walk(path.join(p, e.name));
        }
      };
      walk(path.join(pkiDir, dir));
    }
    return out;
  }

  before(async () => {
    cluster = await Cluster.create();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-keytypes-'));
    // auto_accept: the strongest temptation to store whatever arrives
    await cluster.startMaster({ auto_accept: true });
    pkiDir = path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master');
  });
  after(async () => {
    await cluster.cleanup();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  for (const [name, steps] of REFUSED) {
    it(`${name}: refused with KEY_TYPE_UNSUPPORTED, nothing written`, async () => {
      const identity = makeIdentity(name, steps);
      const id = `kt-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
      let answer: Record<string, unknown> | undefined;
      let tlsRefused = false;
      try {
        const raw = await RawClient.connect({ port: cluster.port, identity });
        raw.send({ t: 'hello', versions: [1], id, agent: 'key-type-test' });
        answer = await raw.nextFrame(10_000);
        raw.destroy();
      } catch {
        tlsRefused = true; // OpenSSL itself may refuse a weak key before any hello
      }
      if (!tlsRefused && answer !== undefined) {
        assert.equal(answer.status, 'rejected', JSON.stringify(answer));
        assert.equal(answer.code, 'KEY_TYPE_UNSUPPORTED', JSON.stringify(answer));
        assert.match(String(answer.message), /brine accepts only Ed25519 or EC P-256 \(named curve\) keys, and no key was stored/);
      }
      assert.ok(tlsRefused || answer !== undefined, 'the master answered or TLS refused');
      assert.deepEqual(storeContents(), [], 'nothing written to the key store');
    });
  }

  it('an EC P-256 key with a named curve is accepted (auto_accept)', async () => {
    const identity = makeIdentity('P-256', [['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-keyout', 'KEY', '-out', 'CERT', '-nodes', '-subj', '/CN=t', '-days', '1']]);
    const raw = await RawClient.connect({ port: cluster.port, identity });
    raw.send({ t: 'hello', versions: [1], id: 'kt-p256', agent: 'key-type-test' });
    const answer = await raw.nextFrame(10_000);
    raw.destroy();
    assert.equal(answer?.status, 'accepted', JSON.stringify(answer));
    assert.deepEqual(storeContents(), [path.join('minions', 'kt-p256')]);
  });
});
