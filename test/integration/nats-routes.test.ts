// NATS cluster routes (issue 21 point 1, threats.md #41): a peer that reaches a server's cluster
// port and introduces itself as another server must get nothing, neither the interest and
// messages of every account nor a way to inject a job. `brine nats server-config` makes routes
// require TLS with a certificate from the cluster CA and the route password; these tests speak
// the route protocol by hand against a real 3-node cluster on which a real minion runs.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatJid } from '../../src/jobs/jid.js';
import { runCli, runCommand } from '../helpers/cluster.js';
import { makeTestCertificate, NATS_SERVER, natsSkip, startNats, type NatsFixture } from '../helpers/nats.js';
import { NatsBrine } from '../helpers/nats-brine.js';
import { RoutePeer } from '../helpers/nats-route-peer.js';
import { nothingFor } from '../helpers/wait.js';

describe('NATS cluster routes', { skip: natsSkip('the NATS route tests'), timeout: 180_000 }, () => {
  let nats: NatsFixture;
  let nb: NatsBrine;
  let scratch: string;
  const peers: RoutePeer[] = [];

  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nats-routes-'));
    nats = await startNats(3);
    nb = await NatsBrine.create(nats);
    await nb.startMaster(0);
    // the minion's only server is n1: a message a route hands to n1 reaches it
    await nb.startAcceptedMinion('route1', {}, [nats.urls[0]!]);
  });
  after(async () => {
    for (const p of peers) p.close();
    await nb?.cleanup();
    await nats?.cleanup();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  async function peer(...args: Parameters<typeof RoutePeer.connect>): Promise<RoutePeer> {
    const p = await RoutePeer.connect(...args);
    peers.push(p);
    return p;
  }

  /** A job for route1 that touches `marker` if it ever runs. */
  function injectedJob(marker: string): string {
    return JSON.stringify({ t: 'job', jid: formatJid(Date.now() * 1000), fun: 'cmd.run', arg: [`touch ${marker}`], kwarg: {}, tgt: 'route1', tgtType: 'glob' });
  }

  it('a raw peer speaking the route protocol on the cluster port is refused, and the job it injects never runs', async () => {
    const marker = path.join(scratch, 'injected-plain');
    const p = await peer(nats.nodes[0]!.routePort);
    p.introduce('brine');
    p.inject(nats.accounts.brine, 'brine.job.route1', injectedJob(marker));
    await p.settled(10_000);
    // the minion still runs what a master sends, after whatever the peer sent
    const ping = await nb.brine(['run', 'route1', 'test.ping', '--out', 'json']);
    assert.deepEqual(JSON.parse(ping.stdout), { route1: true }, ping.stderr);
    await nothingFor(1000, 'the injected job running', () => fs.existsSync(marker));
    // a route that was taken answers PING with PONG and sends its subscriptions (RS+ lines)
    assert.deepEqual(
      { tookRoute: /PONG|RS\+|RMSG|LS\+/.test(p.output), closed: p.closed, injectedJobRan: fs.existsSync(marker) },
      { tookRoute: false, closed: true, injectedJobRan: false },
      `the server's bytes to the raw peer: ${JSON.stringify(p.output.slice(0, 300))}`,
    );
  });

  it('a peer with a route certificate from the cluster CA but without the route password is refused', async () => {
    const tls = nats.routeTls;
    assert.ok(tls, 'the cluster fixture has route TLS');
    const read = (f: string) => fs.readFileSync(f, 'utf8');
    const marker = path.join(scratch, 'injected-tls');
    for (const pass of [undefined, 'not-the-route-password-but-long-enough-0123']) {
      const p = await peer(nats.nodes[0]!.routePort, { tls: { ca: read(tls.ca), cert: read(tls.cert), key: read(tls.key) } });
      p.introduce('brine', { user: 'brine-route', ...(pass === undefined ? {} : { pass }) });
      p.inject(nats.accounts.brine, 'brine.job.route1', injectedJob(marker));
      await p.settled(10_000);
      assert.match(p.output, /Authorization Violation/, `no password: ${pass ?? 'none'}`);
      assert.doesNotMatch(p.output, /PONG|RS\+|RMSG|LS\+/);
      await p.waitClosedWithin(5000);
    }
    const ping = await nb.brine(['run', 'route1', 'test.ping', '--out', 'json']);
    assert.deepEqual(JSON.parse(ping.stdout), { route1: true }, ping.stderr);
    await nothingFor(1000, 'the injected job running', () => fs.existsSync(marker));
    assert.equal(fs.existsSync(marker), false, 'the injected job ran');
  });

  it('a peer with the route password but without a certificate from the cluster CA is refused in the TLS handshake', async () => {
    const tls = nats.routeTls;
    assert.ok(tls);
    const password = fs.readFileSync(tls.passwordFile, 'utf8').trim();
    const other = makeTestCertificate(scratch, 'not-the-cluster-ca');
    const read = (f: string) => fs.readFileSync(f, 'utf8');
    for (const client of [{}, { cert: read(other.cert), key: read(other.key) }]) {
      const p = await peer(nats.nodes[0]!.routePort, { tls: { ca: read(tls.ca), ...client } });
      p.introduce('brine', { user: 'brine-route', pass: password });
      await p.settled(10_000);
      assert.doesNotMatch(p.output, /PONG|RS\+|RMSG|LS\+/, `client certificate: ${'cert' in client ? 'another CA' : 'none'}`);
      assert.equal(p.closed, true);
    }
  });
});

describe('brine nats server-config: cluster routes', { skip: natsSkip('the NATS route config tests') }, () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  function masterConfig(): { dir: string; nats: string } {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nats-routecfg-'));
    dirs.push(root);
    fs.writeFileSync(path.join(root, 'master'), `root_dir: ${JSON.stringify(root)}\n`);
    return { dir: root, nats: path.join(root, 'etc', 'brine', 'pki', 'master', 'nats') };
  }

  const base = (dir: string) => ['nats', 'server-config', '-c', dir, '--server-name', 'n1', '--jetstream-dir', path.join(dir, 'js'), '--resolver-dir', path.join(dir, 'jwt')];

  it('refuses --cluster-listen without route TLS and says which flags to pass, before writing anything', async () => {
    const { dir, nats: natsDir } = masterConfig();
    const { cert, key } = makeTestCertificate(dir, 'route');
    for (const args of [
      ['--cluster-listen', '127.0.0.1:6222', '--route', 'nats-route://127.0.0.1:6223'],
      ['--cluster-listen', '127.0.0.1:6222', '--cluster-tls-cert', cert, '--cluster-tls-key', key],
      ['--cluster-listen', '127.0.0.1:6222', '--cluster-tls-ca', cert],
    ]) {
      const r = await runCli([...base(dir), ...args]);
      assert.equal(r.code, 64, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /USAGE: --cluster-listen needs route TLS .*--cluster-tls-ca .*--cluster-tls-cert .*--cluster-tls-key/);
      assert.equal(r.stdout, '');
    }
    for (const flag of ['--cluster-tls-ca', '--cluster-password-file']) {
      const r = await runCli([...base(dir), flag, cert]);
      assert.equal(r.code, 64, r.stderr);
      assert.match(r.stderr, new RegExp(`${flag} needs --cluster-listen`));
    }
    assert.equal(fs.existsSync(natsDir), false, 'no operator state or route password made by a refused command');
  });

  it('writes routes that need the cluster CA and the route password, made once (0600), never printed on stderr', async () => {
    const { dir, nats: natsDir } = masterConfig();
    const { cert, key } = makeTestCertificate(dir, 'route');
    const conf = path.join(dir, 'nats.conf');
    const args = [...base(dir), '--cluster-listen', '127.0.0.1:6999', '--route', 'nats-route://127.0.0.1:6998', '--tls-cert', cert, '--tls-key', key, '--cluster-tls-ca', cert, '-o', conf];
    const r = await runCli(args);
    assert.equal(r.code, 0, r.stderr);
    const secretFile = path.join(natsDir, 'route-password');
    const password = fs.readFileSync(secretFile, 'utf8').trim();
    assert.match(password, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(fs.statSync(secretFile).mode & 0o777, 0o600);
    assert.equal(fs.statSync(conf).mode & 0o777, 0o600, 'the configuration holds the route password');
    assert.ok(!r.stderr.includes(password) && !r.stdout.includes(password), 'the password is not printed');
    assert.match(r.stderr, /made the cluster route password in .*route-password/);
    const text = fs.readFileSync(conf, 'utf8');
    for (const line of ['user: "brine-route"', `password: "${password}"`, `ca_file: "${cert}"`, 'verify: true', `"nats-route://brine-route:${password}@127.0.0.1:6998"`])
      assert.ok(text.includes(line), `missing ${line}`);
    const check = await runCommand(NATS_SERVER, ['-c', conf, '-t'], { env: process.env, what: 'nats-server -t' });
    assert.equal(check.code, 0, `${check.stdout}${check.stderr}`);
    // a second run (another server) uses the same password
    const again = await runCli([...base(dir), '--server-name', 'n2', '--cluster-listen', '127.0.0.1:6998', '--cluster-tls-ca', cert, '--cluster-tls-cert', cert, '--cluster-tls-key', key]);
    assert.equal(again.code, 0, again.stderr);
    assert.ok(again.stdout.includes(`password: "${password}"`));
    assert.doesNotMatch(again.stderr, /route password/);
  });

  it('refuses a route password file that holds no usable password, without echoing it', async () => {
    const { dir, nats: natsDir } = masterConfig();
    const { cert, key } = makeTestCertificate(dir, 'route');
    const file = path.join(dir, 'route-password');
    for (const content of ['', 'short', 'has "quotes" and spaces in it, which a config cannot take']) {
      fs.writeFileSync(file, content, { mode: 0o600 });
      const r = await runCli([...base(dir), '--cluster-listen', '127.0.0.1:6222', '--cluster-tls-ca', cert, '--cluster-tls-cert', cert, '--cluster-tls-key', key, '--cluster-password-file', file]);
      assert.equal(r.code, 78, r.stderr);
      assert.match(r.stderr, /NATS_ROUTE_SECRET_INVALID/);
      if (content !== '') assert.ok(!r.stderr.includes(content));
    }
    assert.equal(fs.existsSync(natsDir), false, 'no operator state made by a refused command');
  });
});
