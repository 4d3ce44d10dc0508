// Renders a nats-server (2.9+) configuration in operator mode for brine: the operator JWT, the
// system account, a full (replicated) account resolver preloaded with brine's three accounts,
// JetStream, the client listen address and cluster routes. Every value an operator passes is
// checked against a strict grammar first, so nothing typed on the command line can inject
// configuration text. A cluster block always carries route authorization and route TLS with
// peer verification (threats.md #41): the types require them and the renderer checks them.

import { BrineError } from '../util/errors.js';
import { ROUTE_SECRET } from './route-secret.js';

export interface ServerConfigInput {
  /** Unique per server in a cluster (JetStream needs it). */
  serverName: string;
  /** host:port for clients (minions and masters). */
  listen: string;
  /** Directory the full resolver keeps account JWTs in (updates pushed by masters land here). */
  resolverDir: string;
  /** JetStream store directory. */
  jetstreamDir: string;
  /** Optional JetStream limits, bytes (the server's defaults otherwise). */
  jetstreamMaxMemory?: number;
  jetstreamMaxFile?: number;
  cluster?: {
    name: string;
    /** host:port for routes from the other servers. */
    listen: string;
    /** nats-route://host:port URLs of the other servers (the credentials are added here). */
    routes: readonly string[];
    /** What every route presents and every server requires: the same on all servers of the cluster. */
    auth: { user: string; password: string };
    /** Route TLS: this server's certificate and key, and the CA every other server's must chain to. */
    tls: { certFile: string; keyFile: string; caFile: string };
  };
  /** host:port for the HTTP monitoring endpoint (/varz, /jsz, /healthz), off when absent. */
  monitor?: string;
  /** TLS for clients (minions and masters): the server's certificate and key, PEM files. */
  tls?: { certFile: string; keyFile: string };
  /** Largest message in bytes (a return, a job); brine's max_frame_size by default. */
  maxPayload?: number;
  /** Seconds a client has to authenticate (authorization.timeout); DEFAULT_AUTH_TIMEOUT_S by default. */
  authTimeoutSeconds?: number;
  operatorJwt: string;
  systemAccount: string;
  /** account public key -> account JWT */
  preload: Readonly<Record<string, string>>;
}

/** brine's max_frame_size default: a return that fits a frame fits a NATS message. */
export const DEFAULT_MAX_PAYLOAD = 16 * 1024 * 1024;

/**
 * Seconds a client has from its TCP connect to an accepted CONNECT. nats-server's default (2 s,
 * or 1 s more than the TLS timeout) is short when a dead peer's whole share reconnects at once:
 * the late ones get 'Authentication Timeout', which nats.js counts as an authorization error and
 * gives up on the connection after two in a row (issue 27, bench:nats at 10,000). Longer than a
 * minion's own connect timeout (auth_timeout, 5 s by default), so on a slow server the client
 * times out first, and nats.js retries that without giving up; longer than the TLS timeout (5 s),
 * as nats-server requires.
 */
export const DEFAULT_AUTH_TIMEOUT_S = 10;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+|\*):([0-9]{1,5})$/;
const ROUTE = /^nats(-route)?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const NKEY_ACCOUNT = /^A[A-Z2-7]{55}$/;

function usage(message: string): BrineError {
  return new BrineError('USAGE', message);
}

/** Checks a host:port option (`--listen 0.0.0.0:4222`); returns it unchanged. */
export function checkHostPort(what: string, value: string): string {
  const m = HOST_PORT.exec(value);
  const port = m ? Number(m[2]) : 0;
  if (!m || port < 1 || port > 65535) throw usage(`${what} must be host:port with a port from 1 to 65535 (e.g. 0.0.0.0:4222), got ${JSON.stringify(value)}`);
  return value;
}

export function checkRoute(value: string): string {
  const m = ROUTE.exec(value);
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535) throw usage(`a route must be nats-route://host:port (the cluster listen address of another server), got ${JSON.stringify(value)}`);
  return value;
}

export function checkName(what: string, value: string): string {
  if (!NAME.test(value)) throw usage(`${what} must be 1 to 64 letters, digits, '-' or '_' (starting with a letter or digit), got ${JSON.stringify(value)}`);
  return value;
}

/** Checks a directory option: absolute, and nothing that could end a quoted string. */
export function checkPath(what: string, value: string): string {
  if (value === '' || !value.startsWith('/') || /[\0\n\r"\\]/.test(value))
    throw usage(`${what} must be an absolute path without quotes, backslashes or newlines (nats-server resolves relative paths against its own working directory), got ${JSON.stringify(value)}`);
  return value;
}

function checkBytes(what: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw usage(`${what} must be a positive number of bytes, got ${value}`);
  return value;
}

const q = (s: string): string => JSON.stringify(s);

/** The configuration text; throws USAGE naming the first bad value. */
export function renderServerConfig(input: ServerConfigInput): string {
  checkName('the server name', input.serverName);
  checkHostPort('the listen address', input.listen);
  checkPath('the resolver directory', input.resolverDir);
  checkPath('the JetStream directory', input.jetstreamDir);
  if (input.monitor !== undefined) checkHostPort('the monitor address', input.monitor);
  const authTimeout = input.authTimeoutSeconds ?? DEFAULT_AUTH_TIMEOUT_S;
  if (!Number.isFinite(authTimeout) || authTimeout <= 0) throw usage(`the authentication timeout must be a positive number of seconds, got ${authTimeout}`);
  if (!JWT.test(input.operatorJwt)) throw new BrineError('NATS_JWT_INVALID', 'the operator JWT is not a JWT');
  if (!NKEY_ACCOUNT.test(input.systemAccount)) throw new BrineError('NATS_KEY_INVALID', 'the system account is not an account nkey');
  const lines = [
    '# nats-server configuration for brine, written by `brine nats server-config`.',
    '# Do not edit the authorization here: accounts and users are JWTs signed by brine masters;',
    '# re-run the command to change listen addresses, routes or the masters it trusts.',
    `server_name: ${q(input.serverName)}`,
    `listen: ${q(input.listen)}`,
  ];
  if (input.monitor !== undefined) lines.push(`http: ${q(input.monitor)}`);
  // brine's returns can be as large as max_frame_size; NATS's own default is 1 MiB
  lines.push(`max_payload: ${checkBytes('the largest message', input.maxPayload ?? DEFAULT_MAX_PAYLOAD)}`);
  if (input.tls !== undefined) {
    lines.push(
      '',
      '# clients must use TLS (tls:// URLs, or nats_tls_ca on brine daemons); they authenticate with',
      '# their JWTs, not with client certificates',
      'tls: {',
      `  cert_file: ${q(checkPath('the TLS certificate', input.tls.certFile))}`,
      `  key_file: ${q(checkPath('the TLS key', input.tls.keyFile))}`,
      '  timeout: 5',
      '}',
    );
  }
  lines.push('', '# operator mode: every connection presents a user JWT chained to this operator', `operator: ${q(input.operatorJwt)}`, `system_account: ${q(input.systemAccount)}`);
  lines.push(
    "# seconds a client has to present its JWT and signed nonce: above the minions' connect timeout",
    "# (auth_timeout), so a server busy with a dead peer's reconnecting share does not refuse the late",
    '# ones (docs/scale-out.md, "A server\'s loss")',
    'authorization: {',
    `  timeout: ${authTimeout}`,
    '}',
  );
  lines.push(
    '',
    '# account JWTs live in the resolver directory; masters push updates (accepted and revoked',
    '# keys) through $SYS.REQ.CLAIMS.UPDATE and the servers of a cluster share them',
    'resolver: {',
    '  type: full',
    `  dir: ${q(input.resolverDir)}`,
    '  allow_delete: false',
    '  interval: "2m"',
    '  timeout: "5s"',
    '}',
    '# the starting accounts, the same on every run of the command; the JWTs masters push later',
    '# are newer and win over these (see docs/scale-out.md before changing accounts)',
    'resolver_preload: {',
  );
  for (const [account, jwt] of Object.entries(input.preload)) {
    if (!NKEY_ACCOUNT.test(account) || !JWT.test(jwt)) throw new BrineError('NATS_JWT_INVALID', `a preloaded account JWT is malformed (${account.slice(0, 8)}...)`);
    lines.push(`  ${account}: ${q(jwt)}`);
  }
  lines.push('}', '', 'jetstream: {', `  store_dir: ${q(input.jetstreamDir)}`);
  if (input.jetstreamMaxMemory !== undefined) lines.push(`  max_memory_store: ${checkBytes('the JetStream memory limit', input.jetstreamMaxMemory)}`);
  if (input.jetstreamMaxFile !== undefined) lines.push(`  max_file_store: ${checkBytes('the JetStream file limit', input.jetstreamMaxFile)}`);
  lines.push('}');
  if (input.cluster !== undefined) lines.push(...clusterBlock(input.cluster));
  return `${lines.join('\n')}\n`;
}

/**
 * The cluster block. Without authorization and TLS a peer that reaches the cluster port can say
 * it is a server and is then sent every account's interest and messages and may inject its own
 * (seen on 2.9.10: a raw CONNECT got PONG and RS+ lines, and its RMSG ran a job); so both are
 * mandatory, and `verify: true` makes every route, incoming and outgoing, show a certificate
 * from the cluster CA before its password is even read.
 */
function clusterBlock(cluster: NonNullable<ServerConfigInput['cluster']>): string[] {
  checkName('the cluster name', cluster.name);
  checkHostPort('the cluster listen address', cluster.listen);
  checkName('the route user', cluster.auth.user);
  // never echoed: it is a secret
  if (!ROUTE_SECRET.test(cluster.auth.password)) throw new BrineError('NATS_ROUTE_SECRET_INVALID', 'the route password must be 32 to 256 letters, digits, - or _');
  const userinfo = `${cluster.auth.user}:${cluster.auth.password}@`;
  const lines = [
    '',
    '# routes: only servers that show a certificate from the cluster CA and know the route password',
    '# (the same on every server; it makes this file a secret, keep it 0600)',
    'cluster: {',
    `  name: ${q(cluster.name)}`,
    `  listen: ${q(cluster.listen)}`,
    '  authorization: {',
    `    user: ${q(cluster.auth.user)}`,
    `    password: ${q(cluster.auth.password)}`,
    '    timeout: 5',
    '  }',
    '  tls: {',
    `    cert_file: ${q(checkPath('the route TLS certificate', cluster.tls.certFile))}`,
    `    key_file: ${q(checkPath('the route TLS key', cluster.tls.keyFile))}`,
    `    ca_file: ${q(checkPath('the route TLS CA', cluster.tls.caFile))}`,
    '    verify: true',
    '    timeout: 5',
    '  }',
    '  routes: [',
  ];
  for (const r of cluster.routes) {
    checkRoute(r);
    lines.push(`    ${q(r.replace(/^nats(-route)?:\/\//, `nats-route://${userinfo}`))}`);
  }
  lines.push('  ]', '}');
  return lines;
}
