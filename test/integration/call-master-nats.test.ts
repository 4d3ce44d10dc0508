// `brine call` against the master on a NATS minion (transport: nats): the CLI asks the daemon over
// its control socket exactly as with the TLS transport, so the call uses the daemon's NATS session
// for the pillar and the file server, and its return reaches the master's job cache through
// JetStream.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli, waitUntil } from '../helpers/cluster.js';
import { natsSkip, startNats, type NatsFixture } from '../helpers/nats.js';
import { NatsBrine } from '../helpers/nats-brine.js';

describe('brine call against the master on transport: nats', { skip: natsSkip('the NATS transport tests') }, () => {
  let nats: NatsFixture;
  let nb: NatsBrine;
  const call = (args: string[]) => runCli(['call', ...args, '-c', nb.cluster.minionConfigDir('nc1')], { timeoutMs: 60_000 });

  before(async () => {
    nats = await startNats(1);
    nb = await NatsBrine.create(nats);
    const srv = path.join(nb.masterRoot(), 'srv');
    fs.mkdirSync(path.join(srv, 'salt'), { recursive: true });
    fs.mkdirSync(path.join(srv, 'pillar'), { recursive: true });
    fs.writeFileSync(path.join(srv, 'salt', 'hello.txt'), 'served over nats\n');
    fs.writeFileSync(path.join(srv, 'pillar', 'top.sls'), "base:\n  'nc1':\n    - data\n");
    fs.writeFileSync(path.join(srv, 'pillar', 'data.sls'), 'transport: nats\n');
    await nb.startMaster();
    await nb.startAcceptedMinion('nc1');
  });
  after(async () => {
    await nb?.cleanup();
    await nats?.cleanup();
  });

  it("pillar.items and cp.get_file come from the master through the daemon's NATS session; the return is stored", async () => {
    // the first pillar request may race the sign-in; the daemon answers MINION_NO_MASTER until then
    const pillar = await waitUntil(
      async () => {
        const r = await call(['pillar.items', '--out', 'json']);
        return r.code === 0 ? r : undefined;
      },
      30_000,
      'brine call pillar.items to succeed',
    );
    assert.deepEqual(JSON.parse(pillar.stdout), { local: { transport: 'nats' } });
    const dest = path.join(nb.cluster.root, 'got.txt');
    const got = await call(['cp.get_file', 'salt://hello.txt', dest]);
    assert.equal(got.code, 0, got.stderr);
    assert.equal(fs.readFileSync(dest, 'utf8'), 'served over nats\n');
    const echo = await call(['test.echo', 'via-nats']);
    assert.equal(echo.stdout, 'local:\n    via-nats\n');
    await waitUntil(async () => /test\.echo {2}glob:nc1 {2}returned 1\/1/.test((await nb.brine(['jobs', 'list'])).stdout) || undefined, 20_000, 'the call in the job cache');
  });
});
