// A throwaway TLS certificate for servers a test starts (nats-server, an HTTPS git server).

import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

/**
 * A self-signed EC certificate for 127.0.0.1 and localhost that is its own CA (openssl; .ci/run
 * installs it), in `dir` as `<name>.crt` and `<name>.key`.
 */
export function makeTestCertificate(dir: string, name: string): { cert: string; key: string } {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}
