// The doctor's network walk to one master, step by step so each can fail on its own line: name
// resolution, TCP connect, TLS handshake (the master's key), then a `hello` with `probe: true`
// whose `auth` answer is the key state. Nothing is pinned or written.

import * as dns from 'node:dns';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { BrineError, toBrineError, errorMessage, errnoCode } from '../../util/errors.js';
import { MASTER_MESSAGES, PROTOCOL_VERSIONS, type Auth, type MasterMessage, type MinionMessage } from '../../protocol/index.js';
import { certificateProblem, createSelfSignedCert, fingerprint } from '../../pki/index.js';
import { createIdentityContext, dialTls, type FramedSocket, type KeepaliveOptions } from '../../transport/index.js';

export interface ProbeIdentity {
  privateKeyPem: string;
  certPem: string;
  fingerprint: string;
  /** False when the minion has no key pair yet and a throwaway one stands in. */
  own: boolean;
}

/**
 * The minion's key from pki_dir, without writing anything: a missing or stale certificate is
 * made in memory; a missing key pair is replaced by a throwaway one (own: false).
 */
export async function loadProbeIdentity(pkiDir: string, id: string): Promise<ProbeIdentity> {
  let privateKeyPem: string | undefined;
  try {
    privateKeyPem = fs.readFileSync(path.join(pkiDir, 'minion.pem'), 'utf8');
  } catch {
    privateKeyPem = undefined;
  }
  const own = privateKeyPem !== undefined;
  const privateKey = own ? toPrivateKey(privateKeyPem!) : generateKeyPairSync('ed25519').privateKey;
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  let certPem: string | undefined;
  try {
    certPem = fs.readFileSync(path.join(pkiDir, 'minion.crt'), 'utf8');
  } catch {
    certPem = undefined;
  }
  if (certPem === undefined || !own || certificateProblem(certPem, privateKey, id) !== undefined) certPem = await createSelfSignedCert(privateKey, id);
  return { privateKeyPem: pem, certPem, fingerprint: fingerprint(privateKey), own };
}

function toPrivateKey(pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch (err) {
    throw new BrineError('PKI_KEY_INVALID', `the minion's private key cannot be read: ${errorMessage(err)}`, { cause: err });
  }
}

export interface Step<T> {
  ok: boolean;
  ms: number;
  value?: T;
  error?: BrineError;
}

export interface ProbeResult {
  dns: Step<string>;
  tcp?: Step<undefined>;
  tls?: Step<{ fingerprint: string }>;
  /** Filled in by probeKeyState once the caller trusts the master key. */
  channel?: FramedSocket<MasterMessage, MinionMessage>;
}

export interface ProbeOptions {
  host: string;
  port: number;
  identity: ProbeIdentity;
  timeoutMs: number;
  socketOptions: KeepaliveOptions;
  maxFrame: number;
}

const since = (t0: number) => Math.round((performance.now() - t0) * 10) / 10;

/** DNS, TCP and TLS to one master; on success the open channel is returned for the key probe. */
export async function connectToMaster(opts: ProbeOptions): Promise<ProbeResult> {
  let t0 = performance.now();
  let address: string;
  try {
    address = (await dns.promises.lookup(opts.host)).address;
  } catch (err) {
    const code = errnoCode(err) ?? String(err);
    return { dns: { ok: false, ms: since(t0), error: new BrineError('CONNECT_FAILED', `master hostname '${opts.host}' not found: ${code}`, { cause: err }) } };
  }
  const result: ProbeResult = { dns: { ok: true, ms: since(t0), value: address } };
  t0 = performance.now();
  let tcpAt: number | undefined;
  try {
    const dialed = await dialTls<MasterMessage, MinionMessage>({
      host: address,
      port: opts.port,
      secureContext: createIdentityContext(opts.identity),
      timeoutMs: opts.timeoutMs,
      socketOptions: opts.socketOptions,
      maxFrame: opts.maxFrame,
      schemas: MASTER_MESSAGES,
      onTcpConnected: () => (tcpAt = performance.now()),
    });
    const tcpMs = Math.round(((tcpAt ?? performance.now()) - t0) * 10) / 10;
    result.tcp = { ok: true, ms: tcpMs };
    result.tls = { ok: true, ms: since(tcpAt ?? t0), value: { fingerprint: dialed.channel.peerFingerprint } };
    result.channel = dialed.channel;
  } catch (err) {
    const e = toBrineError(err, 'CONNECT_FAILED');
    if (tcpAt === undefined) result.tcp = { ok: false, ms: since(t0), error: e };
    else {
      result.tcp = { ok: true, ms: Math.round((tcpAt - t0) * 10) / 10 };
      result.tls = { ok: false, ms: since(tcpAt), error: e };
    }
  }
  return result;
}

/** Sends the probe hello on an open channel and waits for the master's one `auth` answer. */
export function probeKeyState(channel: FramedSocket<MasterMessage, MinionMessage>, id: string, agent: string, timeoutMs: number): Promise<Auth> {
  return new Promise<Auth>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new BrineError('HANDSHAKE_TIMEOUT', `the master sent no answer to the probe within ${timeoutMs} ms`));
      channel.close('handshake_timeout');
    }, timeoutMs);
    channel.onMessage((m) => {
      if (m.t === 'auth') {
        clearTimeout(timer);
        // settle first: close() runs the close handlers at once, and the first settlement wins
        resolve(m);
        channel.close('shutdown');
      } else if (m.t === 'error') {
        clearTimeout(timer);
        reject(new BrineError('MESSAGE_INVALID', `the master refused the probe: ${m.code}: ${m.message}`));
        channel.close('protocol_error');
      }
    });
    channel.onClose((info) => {
      clearTimeout(timer);
      // another service answered (an HTTPS server): its own error names it and the port to use
      if (info.error instanceof BrineError && info.error.code === 'PEER_NOT_BRINE') {
        reject(info.error);
        return;
      }
      reject(new BrineError('CONNECT_FAILED', `the master closed the connection before answering the probe (${info.reason}${info.error ? `: ${info.error.message}` : ''})`));
    });
    channel.send({ t: 'hello', versions: [...PROTOCOL_VERSIONS], id, agent, probe: true });
  });
}
