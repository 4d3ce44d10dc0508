// Issue 8 point 1 / threats.md #31 as an attack: a real master with an accepted minion whose host
// was re-imaged, and an impostor (a raw TLS client with its own key) that says hello as the same
// ID while the operator runs `brine key --replace`. The key the operator was shown and confirmed
// is the one accepted, never the impostor's; with two candidates and -y, the command refuses.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BRINE_BIN, Cluster, Proc, waitUntil } from '../helpers/cluster.js';
import { RawClient, makeClientIdentity } from '../helpers/raw-client.js';
import { fingerprintOf } from '../helpers/pki.js';

/** SHA-256 of the SPKI DER as colon pairs, computed here rather than with src/pki. */
describe('brine key --replace follows the confirmed key (threats.md #31)', () => {
  let cluster: Cluster;
  let pkiDir: string;
  let scratch: string;
  const raws: RawClient[] = [];

  const minionPub = (name: string) => fs.readFileSync(path.join(cluster.root, 'minions', name, 'etc', 'brine', 'pki', 'minion', 'minion.pub'), 'utf8');
  const acceptedFp = () => fingerprintOf(fs.readFileSync(path.join(pkiDir, 'minions', 'web1'), 'utf8'));
  const deniedFileFp = () => {
    try {
      return fingerprintOf(fs.readFileSync(path.join(pkiDir, 'minions_denied', 'web1'), 'utf8'));
    } catch {
      return undefined;
    }
  };

  /** An impostor: a fresh key pair, a TLS connection and a hello claiming web1. */
  async function impostorHello(): Promise<{ fp: string; answer: Record<string, unknown> | undefined }> {
    const identity = await makeClientIdentity(fs.mkdtempSync(path.join(scratch, 'impostor-')), 'impostor');
    const raw = await RawClient.connect({ port: cluster.port, identity });
    raws.push(raw);
    raw.send({ t: 'hello', versions: [1], id: 'web1', agent: 'impostor' });
    const answer = await raw.nextFrame(10_000);
    return { fp: identity.fingerprint, answer };
  }

  /** The host re-imaged: same ID, new key pair; the master denies it and keeps its key. */
  async function reimage(name: string): Promise<string> {
    // a re-image loses the master pin; master_finger makes the master's refusal believed (issue 8 item 6)
    const masterFinger = (await cluster.brine(['key', '-F', 'master'])).stdout.match(/master\.pub: {2}(\S+)/)![1]!;
    const p = cluster.startMinion(name, { id: 'web1', master_finger: masterFinger });
    assert.equal(await p.exited, 77, p.output);
    return fingerprintOf(minionPub(name));
  }

  before(async () => {
    cluster = await Cluster.create();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-race-'));
    await cluster.startMaster();
    pkiDir = path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master');
    const original = cluster.startMinion('web1');
    await cluster.waitForPending(['web1']);
    assert.equal((await cluster.brine(['key', '-a', 'web1', '-y'])).code, 0);
    await original.waitForOutput(/ready to receive requests/);
    await original.kill('SIGTERM');
  });
  after(async () => {
    for (const r of raws) r.destroy();
    await cluster.cleanup();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('an impostor signing in between the shown fingerprint and "Y" does not get its key accepted', async () => {
    const real = await reimage('web1-reimaged');
    assert.equal(deniedFileFp(), real);

    // the operator starts the replace and reads the fingerprint on the screen
    const child = spawn(process.execPath, [BRINE_BIN, 'key', '--replace', 'web1', '-c', cluster.masterConfigDir], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const op = new Proc('brine key --replace', child);
    try {
      await op.waitForOutput(/Proceed\? \[n\/Y\] /);
      assert.match(op.output, new RegExp(`replaced by its denied key \\(${real}`));

      // meanwhile the impostor says hello as web1: denied, and it is now the last writer of minions_denied/web1
      const imp = await impostorHello();
      assert.equal(imp.answer?.status, 'denied', JSON.stringify(imp.answer));
      await waitUntil(() => deniedFileFp() === imp.fp, 10_000, "the impostor's key in minions_denied/web1");

      // the operator answers yes to what was shown
      child.stdin.end('y\n');
      assert.equal(await op.exited, 0, op.output);
      assert.match(op.output, /Key for minion web1 replaced\./);
      assert.equal(acceptedFp(), real, "the confirmed key is accepted, not the impostor's");
      assert.notEqual(acceptedFp(), imp.fp);

      // the impostor's key is still listed, with its address, for the operator to delete
      const listed = await cluster.brine(['key', '-l', 'den']);
      assert.match(listed.stdout, new RegExp(`^web1: {2}${imp.fp} {2}\\(from 127\\.0\\.0\\.1:\\d+, last seen `, 'm'), listed.stdout);
      assert.ok(!listed.stdout.includes(real), 'the accepted key left the denied list');
    } finally {
      await op.kill('SIGKILL');
    }
    // clean slate for the next case: only the accepted key stays
    assert.equal((await cluster.brine(['key', '-d', 'web1', '-y'])).code, 0);
  });

  it('-y refuses when more than one key was seen for the ID, and --finger picks the confirmed one', async () => {
    // web1 accepted again with its original key, then a re-image and an impostor both sign in
    fs.writeFileSync(path.join(pkiDir, 'minions', 'web1'), minionPub('web1'), { mode: 0o644 });
    const before = acceptedFp();
    const real = await reimage('web1-third');
    const imp = await impostorHello();
    assert.equal(imp.answer?.status, 'denied');
    assert.equal(deniedFileFp(), imp.fp, 'the impostor is the last writer');

    const all = await cluster.brine(['key', '-f', 'web1']);
    assert.ok(all.stdout.includes(real) && all.stdout.includes(imp.fp), all.stdout);

    const refused = await cluster.brine(['key', '--replace', 'web1', '-y']);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /^KEY_AMBIGUOUS: 2 different keys tried to sign in as 'web1'; nothing was changed/);
    assert.ok(refused.stderr.includes(real) && refused.stderr.includes(imp.fp), refused.stderr);
    assert.equal(acceptedFp(), before, 'nothing changed');

    const viaAccept = await cluster.brine(['key', '-a', 'web1', '--include-denied', '-y']);
    assert.equal(viaAccept.code, 1);
    assert.match(viaAccept.stderr, /^KEY_AMBIGUOUS/);
    assert.equal(acceptedFp(), before, 'nothing changed');

    const picked = await cluster.brine(['key', '--replace', 'web1', '--finger', real.replace(/:/g, '').toUpperCase(), '-y']);
    assert.equal(picked.code, 0, picked.stderr);
    assert.equal(acceptedFp(), real);
  });
});
