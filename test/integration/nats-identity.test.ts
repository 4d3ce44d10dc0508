// Issue 13, identity and permissions on NATS: real nats-server processes configured by
// `brine nats server-config`, and raw NATS clients holding real credentials. The server, not
// brine, must refuse a minion that steps outside its own subjects (threats.md #40), a pending key
// that does more than ask to sign in, and a key whose JWT a master revoked.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { connect, type Msg, type NatsConnection, type Status, type Subscription } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  checkSigninAnswer,
  enrolUserJwt,
  issueTimeAfter,
  lookupAccount,
  minionInboxPrefix,
  minionSubjects,
  minionUserJwt,
  NkeySigner,
  revokeUsers,
  serveSignin,
  SIGNIN_SUBJECT,
  type SigninStatus,
  signinRequest,
} from '../../src/nats/index.js';
import { makeTestCertificate, NATS_SERVER, natsSkip, newEd25519, nkeyAuth, startNats, type NatsFixture } from '../helpers/nats.js';
import { runCli, runCommand, waitUntil } from '../helpers/cluster.js';
import { within } from '../helpers/wait.js';

const skip = natsSkip('NATS identity and permissions');

/** A raw client that records every status event (permission errors arrive there). */
class Client {
  readonly statuses: Status[] = [];
  private constructor(readonly nc: NatsConnection) {
    void (async () => {
      for await (const s of nc.status()) this.statuses.push(s);
    })();
  }

  static async open(servers: string[], signer: NkeySigner | undefined, jwt: string, opts: { inboxPrefix?: string; reconnect?: boolean } = {}): Promise<Client> {
    const authenticator = signer === undefined ? () => ({ jwt }) : nkeyAuth(signer, jwt);
    return new Client(await connect({ servers, authenticator, reconnect: opts.reconnect ?? false, ...(opts.inboxPrefix === undefined ? {} : { inboxPrefix: opts.inboxPrefix }) }));
  }

  /** Waits for a `-ERR` naming `text` (the server's own words). */
  refusal(text: string): Promise<string> {
    return waitUntil(
      () => this.statuses.map((s) => ('error' in s ? String(s.error) : '')).find((m) => m.includes(text)),
      10_000,
      `the server to refuse: ${text} (statuses: ${JSON.stringify(this.statuses.map((s) => s.type))})`,
    );
  }
}

async function refusedAtConnect(servers: string[], signer: NkeySigner | undefined, jwt: string): Promise<string> {
  try {
    const c = await Client.open(servers, signer, jwt);
    await c.nc.close();
    return '';
  } catch (err) {
    return String(err);
  }
}

/** The first message of a subscription, within a deadline. */
async function firstMessage(sub: Subscription, what: string): Promise<Msg> {
  return within(
    (async () => {
      for await (const msg of sub) return msg;
      throw new Error(`${what}: the subscription ended without a message`);
    })(),
    10_000,
    what,
  );
}

const closers: Array<() => Promise<unknown>> = [];
async function closeAll(): Promise<void> {
  for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
}

describe('brine nats server-config', { skip }, () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  function masterConfig(): { dir: string; pki: string } {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nats-cfg-'));
    dirs.push(root);
    fs.writeFileSync(path.join(root, 'master'), `root_dir: ${JSON.stringify(root)}\n`);
    return { dir: root, pki: path.join(root, 'etc', 'brine', 'pki', 'master') };
  }

  it('writes a configuration nats-server accepts (operator mode, JetStream, cluster routes)', async () => {
    const { dir, pki } = masterConfig();
    const conf = path.join(dir, 'nats.conf');
    const { cert, key } = makeTestCertificate(dir, 'route');
    const r = await runCli([
      'nats',
      'server-config',
      '-c',
      dir,
      '--server-name',
      'n1',
      '--listen',
      '127.0.0.1:4999',
      '--cluster-listen',
      '127.0.0.1:6999',
      '--route',
      'nats-route://127.0.0.1:6998',
      '--cluster-tls-ca',
      cert,
      '--cluster-tls-cert',
      cert,
      '--cluster-tls-key',
      key,
      '--jetstream-dir',
      path.join(dir, 'js'),
      '--resolver-dir',
      path.join(dir, 'jwt'),
      '-o',
      conf,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const text = fs.readFileSync(conf, 'utf8');
    for (const line of ['server_name: "n1"', 'listen: "127.0.0.1:4999"', 'type: full', 'store_dir:', 'routes: [', 'verify: true', '"nats-route://brine-route:'])
      assert.ok(text.includes(line), `missing ${line}`);
    const accounts = JSON.parse(fs.readFileSync(path.join(pki, 'nats', 'accounts.json'), 'utf8'));
    assert.ok(text.includes(`system_account: "${accounts.sys}"`));
    assert.equal(fs.statSync(path.join(pki, 'nats', 'operator.nk')).mode & 0o777, 0o600);
    const check = await runCommand(NATS_SERVER, ['-c', conf, '-t'], { env: process.env, what: 'nats-server -t' });
    assert.equal(check.code, 0, `${check.stdout}${check.stderr}`);
    // a second run keeps the operator: the same system account
    const again = await runCli(['nats', 'server-config', '-c', dir, '--server-name', 'n2', '--jetstream-dir', '/tmp/x', '--resolver-dir', '/tmp/y']);
    assert.equal(again.code, 0, again.stderr);
    assert.ok(again.stdout.includes(`system_account: "${accounts.sys}"`));
  });

  it('refuses bad flags with USAGE before writing anything', async () => {
    const { dir, pki } = masterConfig();
    for (const [args, message] of [
      [['--listen', 'x"y:1'], /--listen must be host:port/],
      [['--listen', '127.0.0.1:70000'], /--listen must be host:port/],
      [['--route', 'nats-route://127.0.0.1:6222'], /--route needs --cluster-listen/],
      [['--cluster-listen', '127.0.0.1:6222', '--route', 'http://evil:1'], /a route must be nats-route/],
      [['--server-name', 'a b'], /--server-name must be/],
      [['--jetstream-dir', 'relative/js'], /--jetstream-dir must be an absolute path/],
      [['--resolver-dir', '/tmp/a"\ninclude /etc/passwd'], /--resolver-dir must be an absolute path without quotes/],
      [['--enrol-max-connections', '0'], /--enrol-max-connections must be a positive/],
    ] as const) {
      const r = await runCli(['nats', 'server-config', '-c', dir, ...args]);
      assert.equal(r.code, 64, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /USAGE/);
      assert.match(r.stderr, message);
    }
    assert.equal(fs.existsSync(path.join(pki, 'nats')), false, 'no operator state made by a refused command');
  });

  it('refuses a master whose key is EC P-256 with NATS_KEY_UNSUPPORTED', async () => {
    const { dir, pki } = masterConfig();
    fs.mkdirSync(pki, { recursive: true, mode: 0o700 });
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    fs.writeFileSync(path.join(pki, 'master.pem'), ec.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const r = await runCli(['nats', 'server-config', '-c', dir]);
    assert.equal(r.code, 65, r.stderr);
    assert.match(r.stderr, /NATS_KEY_UNSUPPORTED/);
  });
});

describe('NATS permissions on one server', { skip, timeout: 120_000 }, () => {
  let nats: NatsFixture;
  let master: NatsConnection;
  const web1 = newEd25519();
  const web2 = newEd25519();

  before(async () => {
    nats = await startNats(1);
    master = await nats.connectMaster('brine');
  });
  after(async () => {
    await closeAll();
    await nats?.cleanup();
  });

  async function minion(id: string, signer: NkeySigner): Promise<Client> {
    const c = await Client.open(nats.urls, signer, minionUserJwt(nats.master, nats.accounts, id, signer.raw), { inboxPrefix: minionInboxPrefix(id) });
    closers.push(() => c.nc.close());
    return c;
  }

  it("a minion's own key with a master-issued JWT connects, gets its jobs and returns on its own subjects", async () => {
    const id = 'web1.example.com';
    const m = await minion(id, web1.signer);
    const s = minionSubjects(id);
    const jobs = m.nc.subscribe(s.job, { max: 1 });
    const returns = master.subscribe('brine.ret.>', { max: 1 });
    await m.nc.flush();
    await master.flush();
    master.publish(s.job, 'job-1');
    assert.equal((await firstMessage(jobs, 'a job on the minion subject')).string(), 'job-1');
    m.nc.publish(`${s.ret}.20260101000000000001`, 'ret-1');
    const ret = await firstMessage(returns, 'the return on the master');
    assert.equal(ret.subject, 'brine.ret.web1~example~com.20260101000000000001');
    assert.equal(ret.string(), 'ret-1');
  });

  it("refuses a real minion's credentials on another minion's job subject and return (threats.md #40)", async () => {
    const m = await minion('web2', web2.signer);
    const other = minionSubjects('web1.example.com');
    const sub = m.nc.subscribe(other.job);
    const closed = await within(sub.closed, 10_000, 'refusal of the subscription');
    assert.match(String(closed), /Permissions Violation for Subscription to "brine\.job\.web1~example~com"/);

    // the forged return is dropped by the server: the master sees web2's own return first
    const returns = master.subscribe('brine.ret.>', { max: 1 });
    await master.flush();
    m.nc.publish(`${other.ret}.20260101000000000002`, 'forged');
    m.nc.publish(`${minionSubjects('web2').ret}.20260101000000000002`, 'own');
    await m.refusal('Permissions Violation for Publish to "brine.ret.web1~example~com.20260101000000000002"');
    assert.equal((await firstMessage(returns, 'the return on the master')).subject, 'brine.ret.web2.20260101000000000002');

    // nor can it read JetStream or a key-value bucket, nor impersonate a master's request answer
    m.nc.publish('$JS.API.STREAM.INFO.KV_brine_keys', '');
    await m.refusal('Permissions Violation for Publish to "$JS.API.STREAM.INFO.KV_brine_keys"');
    const kv = m.nc.subscribe('$KV.brine_keys.>');
    assert.match(String(await within(kv.closed, 10_000, 'refusal of the KV subscription')), /Permissions Violation for Subscription to "\$KV\.brine_keys\.>"/);
    m.nc.publish('brine.inbox.web1~example~com.x', 'fake answer');
    await m.refusal('Permissions Violation for Publish to "brine.inbox.web1~example~com.x"');
    assert.equal(m.nc.isClosed(), false, 'a refused operation does not cost the minion its connection');
  });

  it('refuses credentials a minion signs for itself, or that a key other than a master signs', async () => {
    const self = minionUserJwt(web1.signer, nats.accounts, 'web1.example.com', web1.signer.raw);
    assert.match(await refusedAtConnect(nats.urls, web1.signer, self), /Authorization Violation/);
    const stranger = newEd25519();
    const forged = minionUserJwt(stranger.signer, nats.accounts, 'web1.example.com', web1.signer.raw);
    assert.match(await refusedAtConnect(nats.urls, web1.signer, forged), /Authorization Violation/);
    // the right JWT with another key's nonce signature
    const good = minionUserJwt(nats.master, nats.accounts, 'web1.example.com', web1.signer.raw);
    assert.match(await refusedAtConnect(nats.urls, web2.signer, good), /Authorization Violation/);
  });

  it('a pending key (the shared enrolment credentials) can ask to sign in and do nothing else', async () => {
    const answered: string[] = [];
    const signin = master.subscribe(SIGNIN_SUBJECT, {
      callback: (_err, msg) => {
        answered.push(msg.string());
        msg.respond('pending');
      },
    });
    closers.push(async () => signin.unsubscribe());
    await master.flush();
    const enrol = enrolUserJwt(nats.master, nats.accounts, newEd25519().signer.publicKey('user'));
    const pending = await Client.open(nats.urls, undefined, enrol);
    closers.push(() => pending.nc.close());
    const reply = await pending.nc.request(SIGNIN_SUBJECT, 'sign me in', { timeout: 10_000 });
    assert.equal(reply.string(), 'pending');
    assert.deepEqual(answered, ['sign me in']);

    pending.nc.publish(minionSubjects('web1.example.com').job, 'evil');
    await pending.refusal('Permissions Violation for Publish to "brine.job.web1~example~com"');
    pending.nc.publish('brine.ret.web1~example~com.1', 'evil');
    await pending.refusal('Permissions Violation for Publish to "brine.ret.web1~example~com.1"');
    pending.nc.publish('$JS.API.INFO', '');
    await pending.refusal('Permissions Violation for Publish to "$JS.API.INFO"');
    for (const subject of ['brine.>', SIGNIN_SUBJECT, '>']) {
      const sub = pending.nc.subscribe(subject);
      assert.match(String(await within(sub.closed, 10_000, `refusal of ${subject}`)), /Permissions Violation for Subscription/, subject);
    }
  });
});

describe('signing in over NATS', { skip, timeout: 120_000 }, () => {
  let nats: NatsFixture;
  before(async () => {
    nats = await startNats(1);
  });
  after(async () => {
    await closeAll();
    await nats?.cleanup();
  });

  it('a pending minion asks over ENROL, is told pending, and once accepted gets its JWT from a master and connects with its own key', async () => {
    const master = await nats.connectMaster('brine');
    const decisions = new Map<string, SigninStatus>();
    const decided: string[] = [];
    const refused: string[] = [];
    const responder = serveSignin(
      master,
      nats.master,
      nats.accounts,
      (req) => {
        decided.push(`${req.id} ${req.userKey}`);
        return decisions.get(req.id) ?? 'pending';
      },
      { onRefused: (e) => refused.push(e.code) },
    );
    closers.push(async () => responder.unsubscribe());
    await master.flush();

    const key = newEd25519();
    const pending = await Client.open(nats.urls, undefined, enrolUserJwt(nats.master, nats.accounts, newEd25519().signer.publicKey('user')));
    closers.push(() => pending.nc.close());
    const ask = async (data: Uint8Array) => checkSigninAnswer((await pending.nc.request(SIGNIN_SUBJECT, data, { timeout: 10_000 })).data, 'new1', key.signer, nats.accounts, [nats.master.raw]);

    assert.deepEqual(await ask(signinRequest('new1', key.signer)), { status: 'pending' });
    assert.deepEqual(decided, [`new1 ${key.signer.publicKey('user')}`]);

    // someone else asking for new1's key without holding it is refused before any decision
    const forged = JSON.parse(Buffer.from(signinRequest('new1', newEd25519().signer)).toString());
    forged.key = key.signer.publicKey('user');
    const answer = await ask(Buffer.from(JSON.stringify(forged)));
    assert.equal(answer.status, 'error');
    assert.equal(answer.code, 'MESSAGE_INVALID');
    assert.deepEqual(refused, ['MESSAGE_INVALID']);
    assert.equal(decided.length, 1);

    decisions.set('new1', 'accepted');
    const accepted = await ask(signinRequest('new1', key.signer));
    assert.equal(accepted.status, 'accepted');
    const m = await Client.open(nats.urls, key.signer, accepted.jwt!, { inboxPrefix: minionInboxPrefix('new1') });
    closers.push(() => m.nc.close());
    const jobs = m.nc.subscribe(minionSubjects('new1').job, { max: 1 });
    await m.nc.flush();
    master.publish(minionSubjects('new1').job, 'hello');
    assert.equal((await firstMessage(jobs, 'a job for the newly accepted minion')).string(), 'hello');
  });
});

describe('adding and removing a master on running servers', { skip, timeout: 120_000 }, () => {
  let nats: NatsFixture;
  const dirs: string[] = [];
  before(async () => {
    nats = await startNats(1);
  });
  after(async () => {
    await closeAll();
    await nats?.cleanup();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('brine nats update-accounts lets a second master issue credentials at once, and takes the right away again', async () => {
    // master B: its own config and key, and a copy of accounts.json (no secret) from master A
    const b = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nats-b-'));
    dirs.push(b);
    fs.writeFileSync(path.join(b, 'master'), `root_dir: ${JSON.stringify(b)}\n`);
    const bPki = path.join(b, 'etc', 'brine', 'pki', 'master');
    const aAccounts = path.join(nats.masterConfigDir, '..', 'master', 'etc', 'brine', 'pki', 'master', 'nats', 'accounts.json');
    const missing = await runCli(['nats', 'enrol-jwt', '-c', b]);
    assert.equal(missing.code, 78, missing.stderr);
    assert.match(missing.stderr, /CONFIG_NOT_FOUND.*accounts\.json/s);
    fs.mkdirSync(path.join(bPki, 'nats'), { recursive: true, mode: 0o700 });
    fs.copyFileSync(aAccounts, path.join(bPki, 'nats', 'accounts.json'));
    const enrol = await runCli(['nats', 'enrol-jwt', '-c', b]);
    assert.equal(enrol.code, 0, enrol.stderr);
    const masterB = NkeySigner.fromKey(fs.readFileSync(path.join(bPki, 'master.pem'), 'utf8'));

    const key = newEd25519();
    const fromB = minionUserJwt(masterB, nats.accounts, 'web7', key.signer.raw);
    assert.match(await refusedAtConnect(nats.urls, key.signer, fromB), /Authorization Violation/, 'B is not a signing key yet');
    assert.match(await refusedAtConnect(nats.urls, undefined, enrol.stdout.trim()), /Authorization Violation/, "nor is B's enrolment JWT valid");

    const add = await runCli(['nats', 'update-accounts', '-c', nats.masterConfigDir, '--server', nats.urls[0]!, '--master-key', path.join(bPki, 'master.pub')]);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /BRINE: 2 master signing keys/);
    const m = await Client.open(nats.urls, key.signer, fromB, { inboxPrefix: minionInboxPrefix('web7') });
    closers.push(() => m.nc.close());
    await m.nc.flush();
    const pending = await Client.open(nats.urls, undefined, enrol.stdout.trim());
    closers.push(() => pending.nc.close());
    await pending.nc.flush();

    const closedByRemoval = m.nc.closed();
    const remove = await runCli(['nats', 'update-accounts', '-c', nats.masterConfigDir, '--server', nats.urls[0]!]);
    assert.equal(remove.code, 0, remove.stderr);
    assert.match(remove.stdout, /BRINE: 1 master signing key\n/);
    // the server closes the connections of users whose issuer is no longer a signing key
    await within(closedByRemoval, 10_000, "close of the connection B's JWT opened");
    await waitUntil(async () => /Authorization Violation/.test(await refusedAtConnect(nats.urls, key.signer, fromB)), 10_000, "the server to refuse B's credentials again");
  });

  it('update-accounts refuses a bad --server, and a master the servers do not trust', async () => {
    const bad = await runCli(['nats', 'update-accounts', '-c', nats.masterConfigDir, '--server', 'http://x:1']);
    assert.equal(bad.code, 64, bad.stderr);
    const none = await runCli(['nats', 'update-accounts', '-c', nats.masterConfigDir]);
    assert.equal(none.code, 64, none.stderr);
    const c = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nats-c-'));
    dirs.push(c);
    fs.writeFileSync(path.join(c, 'master'), `root_dir: ${JSON.stringify(c)}\n`);
    const cNats = path.join(c, 'etc', 'brine', 'pki', 'master', 'nats');
    fs.mkdirSync(cNats, { recursive: true, mode: 0o700 });
    fs.copyFileSync(path.join(nats.masterConfigDir, '..', 'master', 'etc', 'brine', 'pki', 'master', 'nats', 'accounts.json'), path.join(cNats, 'accounts.json'));
    const stranger = await runCli(['nats', 'update-accounts', '-c', c, '--server', nats.urls[0]!]);
    assert.equal(stranger.code, 1, stranger.stderr);
    assert.match(stranger.stderr, /NATS_CLAIMS_UPDATE_FAILED: cannot connect to the NATS servers/);
  });
});

describe('NATS revocations survive a regenerated server config', { skip, timeout: 120_000 }, () => {
  let nats: NatsFixture;
  before(async () => {
    nats = await startNats(1);
  });
  after(async () => {
    await closeAll();
    await nats?.cleanup();
  });

  it('a server restarted on a config written again by brine nats server-config keeps the revocation a master pushed', async () => {
    const key = newEd25519();
    const jwt = minionUserJwt(nats.master, nats.accounts, 'db9', key.signer.raw);
    const sys = await nats.connectMaster('sys');
    const at = await revokeUsers(sys, nats.master, nats.accounts.brine, [key.signer.publicKey('user')]);
    await sys.close();
    const node = nats.nodes[0]!;
    await nats.restart(node, { regenerate: true });
    const again = await nats.connectMaster('sys');
    assert.equal((await lookupAccount(again, nats.accounts.brine)).nats.revocations?.[key.signer.publicKey('user')], at);
    assert.match(await refusedAtConnect(nats.urls, key.signer, jwt), /Authorization Violation/);
  });
});

describe('NATS key revocation on a 3-node cluster with JetStream', { skip, timeout: 180_000 }, () => {
  let nats: NatsFixture;

  before(async () => {
    nats = await startNats(3);
  });
  after(async () => {
    await closeAll();
    await nats?.cleanup();
  });

  it('JetStream stores a minion return with replicas on 3 servers and acknowledges it to the minion only once per message id', async () => {
    const admin = await nats.connectMaster('brine', [nats.urls[0]!]);
    const jsm = await jetstreamManager(admin);
    await jsm.streams.add({ name: 'TEST_RETURNS', subjects: ['brine.ret.>'], num_replicas: 3 });
    const key = newEd25519();
    const m = await Client.open([nats.urls[2]!], key.signer, minionUserJwt(nats.master, nats.accounts, 'db1', key.signer.raw), { inboxPrefix: minionInboxPrefix('db1') });
    closers.push(() => m.nc.close());
    const js = jetstream(m.nc);
    const first = await js.publish(`${minionSubjects('db1').ret}.20260101000000000003`, 'r', { msgID: '20260101000000000003/db1' });
    assert.equal(first.duplicate, false);
    const again = await js.publish(`${minionSubjects('db1').ret}.20260101000000000003`, 'r', { msgID: '20260101000000000003/db1' });
    assert.equal(again.duplicate, true);
    assert.equal((await jsm.streams.info('TEST_RETURNS')).state.messages, 1);
  });

  it("a revoked key's connection is closed on another server of the cluster, it cannot reconnect to any, and a JWT issued after the revocation connects again", async () => {
    const sys = await nats.connectMaster('sys', [nats.urls[0]!]);
    const key = newEd25519();
    const id = 'app1';
    const jwt = minionUserJwt(nats.master, nats.accounts, id, key.signer.raw);
    const m = await Client.open([nats.urls[2]!], key.signer, jwt, { inboxPrefix: minionInboxPrefix(id) });
    closers.push(() => m.nc.close());
    const closed = m.nc.closed();

    const at = await revokeUsers(sys, nats.master, nats.accounts.brine, [key.signer.publicKey('user')]);
    assert.equal((await lookupAccount(sys, nats.accounts.brine)).nats.revocations?.[key.signer.publicKey('user')], at);
    assert.match(String(await within(closed, 15_000, 'close of the revoked connection')), /Authentication Revoked|Authorization Violation/);
    await m.refusal('Authentication Revoked');

    // every server learns the revocation (the full resolver shares it): none lets the old JWT in
    for (const url of nats.urls) {
      await waitUntil(async () => /Authorization Violation/.test(await refusedAtConnect([url], key.signer, jwt)), 10_000, `${url} to refuse the revoked JWT`);
    }

    // accepted again: a JWT issued after the revocation time is valid
    const account = await lookupAccount(sys, nats.accounts.brine);
    const fresh = minionUserJwt(nats.master, nats.accounts, id, key.signer.raw, { iat: issueTimeAfter(account, key.signer.publicKey('user')) });
    const back = await Client.open([nats.urls[1]!], key.signer, fresh, { inboxPrefix: minionInboxPrefix(id) });
    closers.push(() => back.nc.close());
    await back.nc.flush();
    assert.equal(back.nc.isClosed(), false);
  });
});
