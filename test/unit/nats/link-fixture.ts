// A NatsMinionLink on FakeNatsNetwork and a fake clock, with a master's key and accounts to
// issue its JWT: shared by the link's property test and its auth-timeout test.

import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import type { LinkState } from '../../../src/session/index.js';
import { minionUserJwt, NatsMinionLink, NkeySigner } from '../../../src/nats/index.js';
import { FakeNatsNetwork } from './fake-nats.js';

const ID = 'prop-minion';
const signerOf = () => NkeySigner.fromKey(generateKeyPairSync('ed25519').privateKey);
const master = signerOf();
const accounts = { brine: signerOf().publicKey('account'), enrol: signerOf().publicKey('account'), sys: signerOf().publicKey('account') };
const minion = signerOf();
/** The JWT a master issued to this minion. */
export const MINION_JWT = minionUserJwt(master, accounts, ID, minion.raw);
export const ACCEPTED = Buffer.from(JSON.stringify({ status: 'accepted', jwt: MINION_JWT }));
export const PENDING = Buffer.from(JSON.stringify({ status: 'pending', code: 'AUTH_PENDING', message: 'pending' }));

/** A link in `dir`, started as a minion accepted before (its JWT saved) or as a new one. */
export function setup(dir: string, savedJwt: boolean) {
  const clock = new FakeClock(1_000_000);
  const net = new FakeNatsNetwork();
  const transitions: Array<[LinkState, LinkState]> = [];
  const jwtFile = path.join(dir, 'nats-user.jwt');
  fs.rmSync(jwtFile, { force: true });
  fs.rmSync(path.join(dir, 'nats-accepted.json'), { force: true });
  if (savedJwt) fs.writeFileSync(jwtFile, MINION_JWT, { mode: 0o600 });
  const link = new NatsMinionLink(
    {
      id: ID,
      agent: 'prop',
      servers: ['nats://127.0.0.1:4222'],
      signer: minion,
      enrolment: { v: 1, enrolJwt: 'unused-by-the-fake', brineAccount: accounts.brine, masters: [master.publicKey('account')] },
      jwtFile,
      acceptedFile: path.join(dir, 'nats-accepted.json'),
      authTimeoutMs: 5_000,
      heartbeatIntervalMs: 1_000,
      heartbeatTimeoutMs: 3_000,
      backoff: { baseMs: 100, maxMs: 10_000, randomize: true },
      acceptanceWaitMs: 10_000,
      acceptanceWaitMaxMs: 40_000,
      rejectedRetry: false,
      untrustedMasterFatal: false,
      returnsQueued: () => 0,
    },
    clock,
    silentLogger(),
    { onLinkState: (from, to) => transitions.push([from, to]) },
    net.dial,
  );
  return { clock, net, link, transitions, jwtFile };
}
