// Both implementations of the minion link contract (src/session/link-contract.ts) in this test
// process, each against a real far side: a MasterLink against a real `brine master` over
// loopback TLS, a NatsMinionLink against a real nats-server. The contract suite
// (test/integration/link-contract.test.ts) drives them through the same steps.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { systemClock } from '../../src/util/clock.js';
import type { BrineError } from '../../src/util/errors.js';
import { silentLogger } from '../../src/util/logger.js';
import { fingerprint, loadOrCreateIdentity } from '../../src/pki/index.js';
import { createMasterDialer, keepaliveFromConfig } from '../../src/transport/index.js';
import { type ConnectionOutcome, type LinkEvents, type LinkPeer, type LinkState, MasterLink, type MinionLink } from '../../src/session/index.js';
import { MasterPins } from '../../src/minion/master-pin.js';
import { minionUserJwt, NatsMinionLink, NkeySigner, readEnrolment } from '../../src/nats/index.js';
import { Cluster, type Proc, runCli } from './cluster.js';
import { newEd25519, startNats } from './nats.js';

/** What a link told its owner, in order. */
export class LinkLog {
  readonly transitions: Array<[LinkState, LinkState]> = [];
  readonly readies: LinkPeer[] = [];
  readonly downs: ConnectionOutcome[] = [];
  readonly fatal: BrineError[] = [];

  events(): LinkEvents {
    return {
      onLinkState: (from, to) => this.transitions.push([from, to]),
      onReady: (peer) => this.readies.push(peer),
      onDown: (outcome) => this.downs.push(outcome),
      onFatal: (err) => this.fatal.push(err),
    };
  }
}

export interface LinkHarness {
  readonly link: MinionLink;
  readonly log: LinkLog;
  /** The far side dies without a goodbye (SIGKILL). */
  takeDown(): Promise<void>;
  /** The far side is back where it was, with the same keys. */
  bringBack(): Promise<void>;
  cleanup(): Promise<void>;
}

/** Liveness for both transports: a heartbeat every 0.5 s, silence noticed within 3 s. */
const TIMING = { authTimeoutMs: 5_000, heartbeatIntervalMs: 500, heartbeatTimeoutMs: 3_000 };
/** Salt's keepalive defaults with brine's idle of 60 s; TCP_USER_TIMEOUT from the heartbeat timeout. */
const KEEPALIVE = keepaliveFromConfig({ tcp_keepalive: true, tcp_keepalive_idle: 60, tcp_keepalive_cnt: -1, tcp_keepalive_intvl: -1, tcp_user_timeout: 0, heartbeat_timeout: 3 });
const RETRY = { backoff: { baseMs: 100, maxMs: 1_000, randomize: true }, acceptanceWaitMs: 500, acceptanceWaitMaxMs: 0, rejectedRetry: false };

/** A MasterLink to a real master (auto_accept) whose key this minion knows from master_finger. */
export async function tlsLink(): Promise<LinkHarness> {
  const cluster = await Cluster.create();
  try {
    let master: Proc = await cluster.startMaster({ auto_accept: true });
    const masterPub = fs.readFileSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'master.pub'), 'utf8');
    const pkiDir = path.join(cluster.root, 'contract-minion');
    const identity = await loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'contract' });
    const pins = new MasterPins(pkiDir, fingerprint(masterPub));
    const logger = silentLogger();
    const log = new LinkLog();
    const link = new MasterLink(
      { host: '127.0.0.1', port: cluster.port },
      {
        clock: systemClock,
        logger,
        ...createMasterDialer({ identity, timeoutMs: TIMING.authTimeoutMs, socketOptions: KEEPALIVE, maxFrame: 64 * 1024, logger }),
        trustMaster: (m, endpoint) => pins.check(m, endpoint),
        pinMaster: (m, endpoint) => pins.confirm(m, endpoint),
      },
      { id: 'contract', agent: 'brine-contract-test', maxFrame: 16 * 1024 * 1024, ...TIMING },
      RETRY,
      log.events(),
    );
    return {
      link,
      log,
      takeDown: () => master.kill('SIGKILL'),
      bringBack: async () => {
        master = await cluster.startMaster({ auto_accept: true });
      },
      cleanup: async () => {
        link.stop();
        await cluster.cleanup();
      },
    };
  } catch (err) {
    await cluster.cleanup();
    throw err;
  }
}

/**
 * A NatsMinionLink to a real nats-server, holding a user JWT the fixture's master issued (as
 * after an accepted sign-in) and the enrolment file `brine nats enrolment` writes.
 */
export async function natsLink(opts: { jwtIssuer?: 'master' | 'stranger' } = {}): Promise<LinkHarness & { jwtFile: string; urls: string[]; signer: NkeySigner }> {
  const nats = await startNats(1);
  try {
    const dir = path.join(path.dirname(nats.masterConfigDir), 'contract-minion');
    fs.mkdirSync(dir, { mode: 0o700 });
    const enrolmentFile = path.join(dir, 'nats-enrolment.json');
    const r = await runCli(['nats', 'enrolment', '-c', nats.masterConfigDir, '-o', enrolmentFile]);
    if (r.code !== 0) throw new Error(`brine nats enrolment failed: ${r.stdout}${r.stderr}`);
    const { key } = newEd25519();
    const signer = NkeySigner.fromKey(key);
    const jwtFile = path.join(dir, 'nats-user.jwt');
    // a stranger's JWT names the right account but no key the servers trust signed it
    const issuer = opts.jwtIssuer === 'stranger' ? NkeySigner.fromKey(newEd25519().key) : nats.master;
    fs.writeFileSync(jwtFile, minionUserJwt(issuer, nats.accounts, 'contract', signer.raw), { mode: 0o600 });
    const log = new LinkLog();
    const link = new NatsMinionLink(
      {
        id: 'contract',
        agent: 'brine-contract-test',
        servers: nats.urls,
        signer,
        enrolment: readEnrolment(enrolmentFile),
        jwtFile,
        acceptedFile: path.join(dir, 'nats-accepted.json'),
        ...TIMING,
        ...RETRY,
        untrustedMasterFatal: false,
        returnsQueued: () => 0,
      },
      systemClock,
      silentLogger(),
      log.events(),
    );
    const node = nats.nodes[0]!;
    return {
      link,
      log,
      jwtFile,
      urls: nats.urls,
      signer,
      takeDown: () => nats.stop(node, 'SIGKILL'),
      bringBack: () => nats.restart(node),
      cleanup: async () => {
        link.stop();
        await nats.cleanup();
      },
    };
  } catch (err) {
    await nats.cleanup();
    throw err;
  }
}
