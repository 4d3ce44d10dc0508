// The minion's ways to its masters: a MasterLink per master on the built-in transport, or one
// NatsMinionLink to a NATS cluster (transport: nats). The minion sees both through the MinionLink
// contract (src/session/link-contract.ts).

import * as path from 'node:path';
import type { Clock } from '../util/clock.js';
import { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { MinionOptions } from '../config/index.js';
import type { Identity } from '../pki/index.js';
import { parseMasterEndpoint as parseMasterAddress } from '../pki/master-pin-file.js';
import type { MinionStatus } from '../protocol/index.js';
import type { LinkEvents, MasterEndpoint, MinionLink } from '../session/index.js';
import { BRINE_VERSION } from '../modules/version.js';

/** A `master` entry: host, host:port or [v6]:port (master_port when no port is given). */
export function parseMasterEndpoint(entry: string, defaultPort: number): MasterEndpoint {
  return parseMasterAddress(entry, defaultPort);
}

export function endpointKey(m: MasterEndpoint): string {
  return `${m.host}:${m.port}`;
}

/** A way to the masters: the link contract of src/session/link-contract.ts. */
export type { MinionLink };

/** One link's row in the minion's status (brine doctor): `stats` is what the minion counted of it. */
export function linkStatus(link: MinionLink, stats: { ready: number; since?: number; lastDown?: string }): MinionStatus['links'][number] {
  const conn = link.connection;
  const out: MinionStatus['links'][number] = { endpoint: `${link.endpoint.host}:${link.endpoint.port}`, state: link.state, reconnects: Math.max(0, stats.ready - 1), attempts: link.attempts };
  if (conn) out.connection = conn.state;
  if (conn?.resolvedAddress !== undefined) out.address = conn.resolvedAddress;
  if (conn?.masterFingerprint !== undefined) out.masterFingerprint = conn.masterFingerprint;
  if (link.ready && stats.since !== undefined) out.connectedSince = stats.since;
  if (link.ready && conn?.rttMs !== undefined) out.rttMs = conn.rttMs;
  if (stats.lastDown !== undefined) out.lastDownReason = stats.lastDown;
  return out;
}

/** What a link needs of the minion (transport: nats). */
export interface NatsLinkContext {
  opts: MinionOptions;
  id: string;
  identity: Identity;
  clock: Clock;
  logger: Logger;
  /** Returns queued on the minion, reported with each heartbeat. */
  returnsQueued(): number;
}

/** The connection timings and identity every link takes from the minion's config. */
export function connectionSettings(opts: MinionOptions) {
  return {
    agent: `brine/${BRINE_VERSION}`,
    authTimeoutMs: opts.auth_timeout * 1000,
    heartbeatIntervalMs: opts.heartbeat_interval * 1000,
    heartbeatTimeoutMs: opts.heartbeat_timeout * 1000,
    // the returns feature handles `acks`: the master may carry them on its next frame
    carryAcks: true,
  };
}

/** How every link retries: reconnect backoff, the wait while pending, what a refusal ends. */
export function retrySettings(opts: MinionOptions) {
  return {
    backoff: { baseMs: opts.recon_default, maxMs: opts.recon_max, randomize: opts.recon_randomize },
    acceptanceWaitMs: opts.acceptance_wait_time * 1000,
    acceptanceWaitMaxMs: opts.acceptance_wait_time_max * 1000,
    rejectedRetry: opts.rejected_retry,
    untrustedMasterFatal: opts.untrusted_master_exit,
  };
}

/**
 * The NATS link (not started): the enrolment file says how to ask to sign in and which masters'
 * answers to trust; the NATS code is loaded only here, by a minion with transport: nats.
 */
export async function openNatsLink(m: NatsLinkContext, events: LinkEvents): Promise<MinionLink> {
  const { opts } = m;
  if (opts.nats_servers.length === 0) throw new BrineError('CONFIG_VALUE', 'transport: nats needs nats_servers, the NATS servers to connect to (nats://host:port)');
  const { NatsMinionLink, NkeySigner, readEnrolment } = await import('../nats/index.js');
  const enrolment = readEnrolment(opts.nats_enrolment || path.join(opts.pki_dir, 'nats-enrolment.json'));
  return new NatsMinionLink(
    {
      id: m.id,
      ...connectionSettings(opts),
      ...retrySettings(opts),
      servers: opts.nats_servers,
      ...(opts.nats_tls_ca === '' ? {} : { tlsCaFile: opts.nats_tls_ca }),
      signer: NkeySigner.fromKey(m.identity.privateKeyPem),
      enrolment,
      jwtFile: path.join(opts.pki_dir, 'nats-user.jwt'),
      acceptedFile: path.join(opts.pki_dir, 'nats-accepted.json'),
      returnsQueued: m.returnsQueued,
    },
    m.clock,
    m.logger,
    events,
  );
}
