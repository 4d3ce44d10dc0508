// The API's default HTTPS key and certificate, chosen the same way by the master (in-process
// API) and by `brine api`: the master's own when its key is EC P-256, else `pki_dir/api.pem`
// and `api.crt`, an EC P-256 pair made at first use. Browsers accept no Ed25519 certificate
// (the master's default key), and the web view must open in one.

import { createPublicKey } from 'node:crypto';
import * as os from 'node:os';
import { loadOrCreateIdentity } from '../pki/index.js';

export interface ApiTlsSource {
  pki_dir: string;
  /** The master's id (the certificate's common name), '' for none. */
  id: string;
  /** The master's key and certificate. */
  master: { privateKeyPem: string; certPem: string };
}

/** `unused`: the API brings its own certificate (ssl_crt) or serves plain HTTP (disable_ssl). */
export async function apiTlsMaterial(src: ApiTlsSource, unused: boolean): Promise<{ key: string; cert: string }> {
  const own = { key: src.master.privateKeyPem, cert: src.master.certPem };
  if (unused || createPublicKey(own.key).asymmetricKeyType === 'ec') return own;
  const names = new Set(['localhost', os.hostname()].filter((n) => n !== ''));
  const api = await loadOrCreateIdentity({
    pkiDir: src.pki_dir,
    name: 'api',
    commonName: src.id || 'brine-master',
    keyType: 'ec-p256',
    altNames: { dns: [...names], ip: ['127.0.0.1', '::1'] },
  });
  return { key: api.privateKeyPem, cert: api.certPem };
}
