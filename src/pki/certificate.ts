// Self-signed X.509 certificates for a node's key pair. TLS needs a certificate, but brine trusts
// keys, not names or CAs: the certificate only carries the public key and a readable CN.

import { createPublicKey, type KeyObject, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { BrineError } from '../util/errors.js';

type X509Lib = typeof import('@peculiar/x509');
let x509lib: X509Lib | undefined;

/**
 * @peculiar/x509 (with reflect-metadata and tsyringe) costs several MB of memory, and a node needs
 * it only when it makes a certificate: at first start. Checking a certificate uses node:crypto.
 */
async function loadX509(): Promise<X509Lib> {
  if (x509lib) return x509lib;
  await import('reflect-metadata'); // @peculiar/x509 uses tsyringe, which needs the metadata polyfill first
  const lib = await import('@peculiar/x509');
  // The library's global `Crypto` type comes from the DOM lib, which this project does not load.
  lib.cryptoProvider.set(webcrypto as unknown as Parameters<typeof lib.cryptoProvider.set>[0]);
  x509lib = lib;
  return lib;
}

export const CERT_VALIDITY_YEARS = 20;
// Backdated so a peer whose clock is a little behind does not see a certificate from the future.
const BACKDATE_MS = 60 * 60 * 1000;

/** Key types brine can sign certificates with (design.md: Ed25519, or P-256 where required). */
type SigningProfile = { importAlg: webcrypto.EcKeyImportParams | webcrypto.Algorithm; signAlg: webcrypto.Algorithm | webcrypto.EcdsaParams };

function profileFor(key: KeyObject): SigningProfile {
  if (key.asymmetricKeyType === 'ed25519') return { importAlg: { name: 'Ed25519' }, signAlg: { name: 'Ed25519' } };
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
    return { importAlg: { name: 'ECDSA', namedCurve: 'P-256' }, signAlg: { name: 'ECDSA', hash: 'SHA-256' } as webcrypto.EcdsaParams };
  }
  const kind = key.asymmetricKeyType === 'ec' ? `EC ${key.asymmetricKeyDetails?.namedCurve ?? '?'}` : String(key.asymmetricKeyType);
  throw new BrineError('PKI_KEY_INVALID', `unsupported key type ${kind}: brine keys are Ed25519 (or EC P-256)`);
}

/** Host names and addresses a certificate names (subjectAltName), for clients that check them (browsers). */
export interface AltNames {
  dns: readonly string[];
  ip: readonly string[];
}

/** A self-signed certificate (PEM) for `privateKey` with subject CN=`commonName` (and `altNames` if given). */
export async function createSelfSignedCert(privateKey: KeyObject, commonName: string, now: Date = new Date(), altNames?: AltNames): Promise<string> {
  const profile = profileFor(privateKey);
  const x509 = await loadX509();
  const publicKey = createPublicKey(privateKey);
  const subtle = webcrypto.subtle;
  const keys = {
    privateKey: await subtle.importKey('pkcs8', privateKey.export({ type: 'pkcs8', format: 'der' }), profile.importAlg, false, ['sign']),
    publicKey: await subtle.importKey('spki', publicKey.export({ type: 'spki', format: 'der' }), profile.importAlg, true, ['verify']),
  };
  const notAfter = new Date(now.getTime());
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CERT_VALIDITY_YEARS);
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01; // positive and without a leading zero byte (RFC 5280 §4.1.2.2)
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString('hex'),
    name: new x509.Name([{ CN: [commonName] }]),
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter,
    keys: keys as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'],
    signingAlgorithm: profile.signAlg,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ...(altNames
        ? [
            new x509.SubjectAlternativeNameExtension([...altNames.dns.map((value) => ({ type: 'dns' as const, value })), ...altNames.ip.map((value) => ({ type: 'ip' as const, value }))]),
            new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          ]
        : []),
    ],
  });
  return `${cert.toString('pem')}\n`;
}

/**
 * Why `certPem` cannot serve as this node's certificate, or undefined when it can: it must parse,
 * carry this private key's public half, be valid now and name `commonName`.
 */
export function certificateProblem(certPem: string, privateKey: KeyObject, commonName: string, now: Date = new Date()): string | undefined {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (err) {
    return `it cannot be parsed (${(err as Error).message})`;
  }
  if (!cert.checkPrivateKey(privateKey)) return 'it was made for a different key';
  if (new Date(cert.validTo).getTime() <= now.getTime()) return `it expired on ${cert.validTo}`;
  if (cert.subject !== `CN=${commonName}`) return `its subject is ${cert.subject}, not CN=${commonName}`;
  return undefined;
}
