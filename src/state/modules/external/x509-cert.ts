// x509.certificate_managed as Salt 3007's x509_v2 (salt/states/x509_v2.py), for the basics:
// a self-signed certificate (signing_private_key alone) or one signed by a local CA
// (signing_cert + signing_private_key), issued by the `openssl` program and compared with
// node:crypto's X509Certificate. Remote signing (ca_server, signing_policy) is refused clearly.

import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runArgv } from '../../../modules/host-tools.js';
import { defineState, type StateContext, type StateFunction } from '../../types.js';
import { applyPerms, pathPermChanges } from '../file-perms.js';
import { stateResult } from '../state-result.js';
import { findProgram, isUnreachable } from './backend.js';
import { FILE_PARAMS, filePerms, writeSecret } from './x509-file.js';
import { errorMessage } from '../../../util/errors.js';

// Subject attributes Salt takes as keyword arguments, in the order they are written.
const NAME_ATTRS = ['C', 'ST', 'L', 'STREET', 'O', 'OU', 'CN', 'emailAddress', 'Email', 'SN', 'GN', 'UID', 'serialNumber'];
const EXTENSIONS = [
  'basicConstraints',
  'keyUsage',
  'extendedKeyUsage',
  'subjectKeyIdentifier',
  'authorityKeyIdentifier',
  'issuerAltName',
  'authorityInfoAccess',
  'subjectAltName',
  'crlDistributionPoints',
  'certificatePolicies',
  'policyConstraints',
  'inhibitAnyPolicy',
  'nameConstraints',
  'noCheck',
  'tlsfeature',
];

/** The subject as [attribute, value] pairs, most significant first (C ... CN). */
function subjectPairs(subject: unknown, extra: Record<string, unknown>): [string, string][] {
  if (typeof subject === 'string') {
    // RFC 4514 lists the most specific attribute first: CN=x,O=y,C=z.
    return subject
      .split(/(?<!\\),/)
      .map((p) => p.trim())
      .filter((p) => p !== '')
      .map((p) => {
        const i = p.indexOf('=');
        return [p.slice(0, i), p.slice(i + 1)] as [string, string];
      })
      .reverse();
  }
  if (subject && typeof subject === 'object') return Object.entries(subject as Record<string, unknown>).map(([k, v]) => [k, String(v)]);
  return NAME_ATTRS.filter((k) => extra[k] !== undefined).map((k) => [k === 'Email' ? 'emailAddress' : k, String(extra[k])]);
}

const rfc4514 = (pairs: [string, string][]): string =>
  [...pairs]
    .reverse()
    .map(([k, v]) => `${k}=${v.replace(/,/g, '\\,')}`)
    .join(',');
/** node:crypto's subject text ("C=US\nCN=x") as RFC 4514. */
const certRfc4514 = (text: string): string =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .reverse()
    .join(',');
const opensslSubj = (pairs: [string, string][]): string => pairs.map(([k, v]) => `/${k}=${v.replace(/[/\\]/g, (c) => `\\${c}`)}`).join('') || '/';

/** A key or certificate argument: a path, or the PEM text itself (Salt accepts both). */
function pemOf(v: string): string {
  return v.includes('-----BEGIN') ? v : fs.readFileSync(v, 'utf8');
}

function loadKey(v: string, passphrase: string | undefined): KeyObject {
  return createPrivateKey(passphrase ? { key: pemOf(v), passphrase } : pemOf(v));
}

interface Plan {
  signingKey: string;
  signingPass?: string | undefined;
  signingCert?: string | undefined;
  privateKey?: string | undefined;
  privatePass?: string | undefined;
  csr?: string | undefined;
  subject: [string, string][];
  extensions: [string, string][];
  days: number;
  digest: string;
  serial: string;
}

/** Issues the certificate with openssl; returns its PEM. Secrets travel in the environment, never in argv. */
async function issue(ctx: StateContext, plan: Plan): Promise<string> {
  const openssl = findProgram('openssl', 'openssl');
  if (isUnreachable(openssl)) throw new Error(openssl.reason);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-x509-'));
  try {
    const file = (n: string, text: string) => {
      const p = path.join(tmp, n);
      fs.writeFileSync(p, text, { mode: 0o600 });
      return p;
    };
    const conf = file('openssl.cnf', `[req]\ndistinguished_name = dn\n[dn]\n[ext]\n${plan.extensions.map(([k, v]) => `${k} = ${v}`).join('\n')}\n`);
    const signKey = file('signing.key', pemOf(plan.signingKey));
    const env: Record<string, string> = { BRINE_SIGNING_PASS: plan.signingPass ?? '', BRINE_KEY_PASS: plan.privatePass ?? '' };
    const digest = createPrivateKey(plan.signingPass ? { key: pemOf(plan.signingKey), passphrase: plan.signingPass } : pemOf(plan.signingKey)).asymmetricKeyType?.startsWith('ed')
      ? []
      : [`-${plan.digest}`];
    const common = ['-days', String(plan.days), ...digest, '-set_serial', `0x${plan.serial}`];
    const run = async (argv: string[]) => {
      const r = await runArgv('openssl', [openssl.path, ...argv], { env, signal: ctx.exec.signal, timeoutMs: 60_000 });
      if (r.retcode !== 0) throw new Error(`openssl ${argv[0]} failed: ${(r.stderr || r.stdout).trim()}`);
      return r.stdout;
    };
    const pass = (v: string | undefined, name: string) => (v ? ['-passin', `env:${name}`] : []);
    if (!plan.signingCert) {
      const out = await run([
        'req',
        '-new',
        '-x509',
        '-key',
        signKey,
        ...pass(plan.signingPass, 'BRINE_SIGNING_PASS'),
        '-subj',
        opensslSubj(plan.subject),
        '-config',
        conf,
        '-extensions',
        'ext',
        ...common,
      ]);
      return `${out.trim()}\n`;
    }
    const csr = plan.csr
      ? file('req.csr', pemOf(plan.csr))
      : file(
          'req.csr',
          await run(['req', '-new', '-key', file('private.key', pemOf(plan.privateKey!)), ...pass(plan.privatePass, 'BRINE_KEY_PASS'), '-subj', opensslSubj(plan.subject), '-config', conf]),
        );
    const out = await run([
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      file('ca.crt', pemOf(plan.signingCert)),
      '-CAkey',
      signKey,
      ...pass(plan.signingPass, 'BRINE_SIGNING_PASS'),
      '-extfile',
      conf,
      '-extensions',
      'ext',
      ...common,
    ]);
    return `${out.trim()}\n`;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const str = (v: unknown): string | undefined => (v === undefined || v === null || v === '' ? undefined : String(v));

const certificateManaged = defineState({
  name: 'x509.certificate_managed',
  doc: 'Make sure a PEM certificate is at a path: self-signed, or signed by a local CA key and certificate (acts for real).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the path of the certificate' },
    { name: 'days_remaining', type: 'int', doc: 'reissue when fewer days are left (default 90)' },
    { name: 'ca_server', type: 'string', doc: 'remote signing: not supported by brine' },
    { name: 'signing_policy', type: 'string', doc: 'remote signing: not supported by brine' },
    { name: 'encoding', type: 'string', default: 'pem', doc: 'only pem on brine' },
    { name: 'append_certs', type: 'any' },
    { name: 'digest', type: 'string', default: 'sha256' },
    { name: 'signing_private_key', type: 'string', doc: 'the CA key (path or PEM); alone, the certificate is self-signed with it' },
    { name: 'signing_private_key_passphrase', type: 'string' },
    { name: 'signing_cert', type: 'string', doc: 'the CA certificate (path or PEM)' },
    { name: 'public_key', type: 'string' },
    { name: 'private_key', type: 'string', doc: 'the key the certificate is for (path or PEM)' },
    { name: 'private_key_passphrase', type: 'string' },
    { name: 'csr', type: 'string' },
    { name: 'subject', type: 'any', doc: 'RFC 4514 text or a mapping; else the CN, O, C ... arguments' },
    { name: 'serial_number', type: 'any' },
    { name: 'not_before', type: 'string' },
    { name: 'not_after', type: 'string' },
    { name: 'days_valid', type: 'int', doc: 'validity in days (default 365)' },
    ...FILE_PARAMS,
  ],
  kwargs: true,
  example:
    '/etc/pki/www.crt:\n  x509.certificate_managed:\n    - signing_private_key: /etc/pki/ca.key\n    - signing_cert: /etc/pki/ca.crt\n    - private_key: /etc/pki/www.key\n    - CN: www.example.com\n    - subjectAltName: DNS:www.example.com\n    - days_valid: 90',
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    if (n.ca_server || n.signing_policy)
      return stateResult(
        name,
        false,
        'x509.certificate_managed: ca_server and signing_policy (signing on another minion) are not supported by brine; sign locally with signing_private_key and signing_cert',
      );
    if (n.encoding !== 'pem') return stateResult(name, false, `encoding ${n.encoding} is not supported by brine's x509.certificate_managed; use pem`);
    if (n.not_before || n.not_after) return stateResult(name, false, 'x509.certificate_managed: not_before and not_after are not supported by brine; use days_valid');
    const unknown = Object.keys(a.extra).filter((k) => !NAME_ATTRS.includes(k) && !EXTENSIONS.includes(k));
    if (unknown.length > 0) return stateResult(name, false, `Unrecognized keyword arguments: [${unknown.map((k) => `'${k}'`).join(', ')}]`);
    const perms = await filePerms('x509.certificate_managed', n, '0644');
    if ('error' in perms) return stateResult(name, false, perms.error);
    const signingKey = str(n.signing_private_key);
    if (!signingKey) return stateResult(name, false, 'signing_private_key is required (the CA key, or the key of a self-signed certificate)');
    const subject = subjectPairs(n.subject, a.extra);
    const extensions = EXTENSIONS.filter((k) => a.extra[k] !== undefined).map((k) => [k, Array.isArray(a.extra[k]) ? (a.extra[k] as unknown[]).join(', ') : String(a.extra[k])] as [string, string]);
    const changes: Record<string, unknown> = {};
    let current: X509Certificate | undefined;
    if (fs.existsSync(name)) {
      try {
        current = new X509Certificate(fs.readFileSync(name));
      } catch {
        changes.replaced = name;
      }
    } else changes.created = name;
    if (current) {
      try {
        const daysRemaining = n.days_remaining ?? 90;
        if (new Date(current.validTo).getTime() < Date.now() + daysRemaining * 86_400_000) changes.expiration = true;
        const signer = loadKey(signingKey, n.signing_private_key_passphrase);
        const ownKey = n.private_key ? loadKey(n.private_key, n.private_key_passphrase) : n.signing_cert ? undefined : signer;
        if (ownKey && !current.checkPrivateKey(ownKey)) changes.private_key = true;
        if (n.public_key && !createPublicKey(pemOf(n.public_key)).equals(current.publicKey)) changes.private_key = true;
        const ca = n.signing_cert ? new X509Certificate(pemOf(n.signing_cert)) : undefined;
        if (!current.verify(ca ? ca.publicKey : createPublicKey(signer))) changes.signing_private_key = true;
        const wantSubject = rfc4514(subject);
        if (certRfc4514(current.subject) !== wantSubject) changes.subject_name = wantSubject;
        const wantIssuer = ca ? certRfc4514(ca.subject) : wantSubject;
        if (certRfc4514(current.issuer) !== wantIssuer) changes.issuer_name = wantIssuer;
        const serial = str(n.serial_number)?.replace(/:/g, '').toUpperCase();
        if (serial !== undefined && current.serialNumber.toUpperCase() !== serial) changes.serial_number = n.serial_number;
      } catch (err) {
        return stateResult(name, false, errorMessage(err));
      }
    }
    if (Object.keys(changes).length === 0) {
      if (!ctx.test && Object.keys(await pathPermChanges(name, perms)).length > 0) await applyPerms(name, perms);
      return stateResult(name, true, 'The certificate is in the correct state');
    }
    const verb = current ? 'recreate' : 'create';
    if (ctx.test) return stateResult(name, null, `The certificate would have been ${verb}d`, changes);
    if (n.signing_cert && !n.private_key && !n.csr) return stateResult(name, false, 'a certificate signed by signing_cert needs private_key or csr');
    let pem: string;
    try {
      pem = await issue(ctx, {
        signingKey,
        signingPass: n.signing_private_key_passphrase,
        signingCert: n.signing_cert,
        privateKey: n.private_key ?? (n.signing_cert ? undefined : signingKey),
        privatePass: n.private_key_passphrase,
        csr: n.csr,
        subject,
        extensions,
        days: n.days_valid ?? 365,
        digest: n.digest,
        serial:
          str(n.serial_number)?.replace(/:/g, '') ??
          randomBytes(16)
            .toString('hex')
            .replace(/^[89a-f]/, '1'),
      });
      const appended = (Array.isArray(n.append_certs) ? n.append_certs : n.append_certs ? [n.append_certs] : []).map((c) => pemOf(String(c)).trim()).join('\n');
      await writeSecret(name, appended ? `${pem}${appended}\n` : pem, perms, n.makedirs);
    } catch (err) {
      return stateResult(name, false, errorMessage(err));
    }
    return stateResult(name, true, `The certificate has been ${verb}d`, changes);
  },
});

export const x509CertStates: readonly StateFunction[] = [certificateManaged];
