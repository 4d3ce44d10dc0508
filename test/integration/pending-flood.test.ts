// Issue 8 point 2 (pending keys) / threats.md #25, #33 as attacks on a real master: one key
// claiming fifty IDs, and fifteen keys from one address, each a raw TLS client saying hello. The
// caps hold on disk, every refusal is coded (AUTH_PENDING_LIMIT) and never calls a pending key
// "accepted", and a legitimate minion from another address still gets to pending and accepted.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cluster, waitUntil } from '../helpers/cluster.js';
import { RawClient, makeClientIdentity } from '../helpers/raw-client.js';
import type { Identity } from '../../src/pki/index.js';
import { fingerprintOf } from '../helpers/pki.js';

const LIMITS = { max_pending_keys: 20, max_pending_keys_per_address: 5, max_ids_per_key: 3 };

describe('pending-key flood (threats.md #25, #33)', () => {
  let cluster: Cluster;
  let pendingDir: string;
  let scratch: string;

  /** One hello as `id` with `identity` from `from`; the master's auth answer. */
  async function hello(identity: Identity, id: string, from: string): Promise<Record<string, unknown>> {
    // a master that is busy (auth_rate) says when to come back; that is an answer to wait on, not a result
    return waitUntil(
      async () => {
        const raw = await RawClient.connect({ port: cluster.port, identity, localAddress: from });
        try {
          raw.send({ t: 'hello', versions: [1], id, agent: 'flood' });
          const answer = await raw.nextFrame(10_000);
          assert.ok(answer, `no answer to hello ${id} from ${from}`);
          return answer.status === 'busy' ? undefined : answer;
        } finally {
          raw.destroy();
        }
      },
      30_000,
      `a non-busy answer for ${id}`,
    );
  }

  /** Fingerprints of the pending key files on disk, per ID. */
  function pendingOnDisk(): Map<string, string> {
    const out = new Map<string, string>();
    for (const e of fs.readdirSync(pendingDir, { withFileTypes: true }))
      if (e.isFile() && !e.name.startsWith('.')) out.set(e.name, fingerprintOf(fs.readFileSync(path.join(pendingDir, e.name), 'utf8')));
    return out;
  }

  before(async () => {
    cluster = await Cluster.create();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-flood-'));
    await cluster.startMaster(LIMITS);
    pendingDir = path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'minions_pre');
  });
  after(async () => {
    await cluster.cleanup();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('one key cannot squat more than max_ids_per_key IDs', async () => {
    const squatter = await makeClientIdentity(path.join(scratch, 'squatter'));
    const answers: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 50; i++) answers.push(await hello(squatter, `squat-${i}`, '127.0.0.2'));
    const stored = [...pendingOnDisk()].filter(([, fp]) => fp === squatter.fingerprint);
    assert.equal(stored.length, LIMITS.max_ids_per_key, `on disk: ${stored.map(([id]) => id).join(' ')}`);
    assert.deepEqual(
      answers.slice(0, 3).map((a) => a.status),
      ['pending', 'pending', 'pending'],
    );
    for (const a of answers.slice(3)) {
      assert.equal(a.status, 'full');
      assert.equal(a.code, 'AUTH_PENDING_LIMIT');
      assert.match(String(a.message), /already waits for an operator under 3 other IDs \(max_ids_per_key is 3\)/);
      assert.doesNotMatch(String(a.message), /accepted for|already accepted/);
    }
    // the same key under an ID it already holds is still just pending, not refused
    assert.equal((await hello(squatter, 'squat-0', '127.0.0.2')).status, 'pending');
    // nor can it park itself under more IDs as a second key (denied keys count too)
    const victim = await makeClientIdentity(path.join(scratch, 'victim'));
    assert.equal((await hello(victim, 'victim-1', '127.0.0.4')).status, 'pending');
    const denied = await hello(squatter, 'victim-1', '127.0.0.2');
    assert.equal(denied.status, 'denied');
    assert.match(String(denied.message), /different key pending for ID 'victim-1'/);
    assert.doesNotMatch(String(denied.message), /accepted/, 'a pending key is never called accepted');
    assert.equal(fs.existsSync(path.join(pendingDir, '..', 'minions_denied', 'victim-1')), false, 'not stored');
  });

  it('one address cannot store more than max_pending_keys_per_address keys', async () => {
    const answers: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 15; i++) {
      const id = await makeClientIdentity(path.join(scratch, `many-${i}`));
      answers.push(await hello(id, `many-${i}`, '127.0.0.3'));
    }
    const fromThree = [...pendingOnDisk().keys()].filter((id) => id.startsWith('many-'));
    assert.equal(fromThree.length, LIMITS.max_pending_keys_per_address, fromThree.join(' '));
    assert.equal(answers.filter((a) => a.status === 'pending').length, 5);
    for (const a of answers.slice(5)) {
      assert.equal(a.code, 'AUTH_PENDING_LIMIT');
      assert.match(String(a.message), /5 keys from 127\.0\.0\.3 are already pending \(max_pending_keys_per_address is 5\)/);
    }
  });

  it('a legitimate minion from another address still gets to pending, then accepted', async () => {
    const legit = cluster.startMinion('legit');
    await cluster.waitForPending(['legit']);
    assert.equal((await cluster.brine(['key', '-a', 'legit', '-y'])).code, 0);
    await legit.waitForOutput(/ready to receive requests/);
    const ping = await cluster.brine(['run', 'legit', 'test.ping']);
    assert.equal(ping.code, 0, ping.stdout + ping.stderr);
    assert.ok(pendingOnDisk().size <= LIMITS.max_pending_keys);
  });
});
