// Self-signed X.509 certificates for a node's key pair. TLS needs a certificate, but brine trusts
// keys, not names or CAs: the certificate only carries the public key and a readable CN.

import { createPublicKey, type KeyObject, randomBytes, sign, X509Certificate } from 'node:crypto';
import { BrineError, errorMessage } from '../util/errors.js';
import { bitString, boolean, directoryString, explicit, ipOctets, objectIdentifier, octetString, sequence, set, time, tlv, unsignedInteger, type Der } from './der.js';

// Made with node:crypto and a small DER encoder (der.ts): a certificate library (@peculiar/x509
// with reflect-metadata and tsyringe) held ~20 MB of a node's memory after its first start.

export const CERT_VALIDITY_YEARS = 20;
// Backdated so a peer whose clock is a little behind does not see a certificate from the future.
const BACKDATE_MS = 60 * 60 * 1000;

const OID = {
  ed25519: '1.3.101.112',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
};

/** Key types brine can sign certificates with (design.md: Ed25519, or P-256 where required). */
interface SigningProfile {
  /** AlgorithmIdentifier of the signature (no parameters for either). */
  algorithm: Der;
  /** node:crypto's digest argument to sign(). */
  digest: string | null;
}

function profileFor(key: KeyObject): SigningProfile {
  if (key.asymmetricKeyType === 'ed25519') return { algorithm: sequence(objectIdentifier(OID.ed25519)), digest: null };
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return { algorithm: sequence(objectIdentifier(OID.ecdsaWithSha256)), digest: 'sha256' };
  const kind = key.asymmetricKeyType === 'ec' ? `EC ${key.asymmetricKeyDetails?.namedCurve ?? '?'}` : String(key.asymmetricKeyType);
  throw new BrineError('PKI_KEY_INVALID', `unsupported key type ${kind}: brine keys are Ed25519 (or EC P-256)`);
}

/** Host names and addresses a certificate names (subjectAltName), for clients that check them (browsers). */
export interface AltNames {
  dns: readonly string[];
  ip: readonly string[];
}

function extension(oid: string, critical: boolean, value: Der): Der {
  return sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));
}

function extensions(altNames: AltNames | undefined): Der {
  const list = [
    extension(OID.basicConstraints, true, sequence()), // cA FALSE (the default, so omitted)
    extension(OID.keyUsage, true, tlv(0x03, Buffer.from([0x07, 0x80]))), // digitalSignature only: one bit, 7 unused
  ];
  if (altNames) {
    // GeneralName dNSName [2] IA5String, iPAddress [7] OCTET STRING (both implicit, primitive)
    const names = [...altNames.dns.map((d) => tlv(0x82, Buffer.from(d, 'ascii'))), ...altNames.ip.map((ip) => tlv(0x87, ipOctets(ip)))];
    list.push(extension(OID.subjectAltName, false, sequence(...names)));
    list.push(extension(OID.extKeyUsage, false, sequence(objectIdentifier(OID.serverAuth))));
  }
  return explicit(3, sequence(...list));
}

/** A self-signed certificate (PEM) for `privateKey` with subject CN=`commonName` (and `altNames` if given). */
export async function createSelfSignedCert(privateKey: KeyObject, commonName: string, now: Date = new Date(), altNames?: AltNames): Promise<string> {
  const profile = profileFor(privateKey);
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const notAfter = new Date(now.getTime());
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CERT_VALIDITY_YEARS);
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01; // positive and without a leading zero byte (RFC 5280 §4.1.2.2)
  const name = sequence(set(sequence(objectIdentifier(OID.commonName), directoryString(commonName))));
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))), // v3
    unsignedInteger(serial),
    profile.algorithm,
    name, // issuer: self-signed
    sequence(time(new Date(now.getTime() - BACKDATE_MS)), time(notAfter)),
    name,
    spki,
    extensions(altNames),
  );
  const signature = sign(profile.digest, tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = sequence(tbs, profile.algorithm, bitString(signature));
  const body = der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
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
    return `it cannot be parsed (${errorMessage(err)})`;
  }
  if (!cert.checkPrivateKey(privateKey)) return 'it was made for a different key';
  if (new Date(cert.validTo).getTime() <= now.getTime()) return `it expired on ${cert.validTo}`;
  if (cert.subject !== `CN=${commonName}`) return `its subject is ${cert.subject}, not CN=${commonName}`;
  return undefined;
}
