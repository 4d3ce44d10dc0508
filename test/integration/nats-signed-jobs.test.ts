// Issue 21 point 2 (threats.md #41): on NATS a minion runs only jobs signed for it by a master of
// its enrolment file. A real master and minion on a real nats-server; the "attacker" is a raw
// client holding a privileged BRINE credential (the fixture master's user, which may publish on
// any subject but holds no signature of a job), or a key that is no master of the enrolment file.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { waitUntil, type Proc } from '../helpers/cluster.js';
import { natsSkip, newEd25519, startNats, type NatsFixture } from '../helpers/nats.js';
import { NatsBrine } from '../helpers/nats-brine.js';
import { formatJid } from '../../src/jobs/jid.js';
import { JOB_HEADERS, minionSubjects, payloadDigest, signJob } from '../../src/nats/index.js';
import { nothingFor } from '../helpers/wait.js';

let jidSeq = 0;
/** A jid the minion takes as one (a timestamp now), distinct from the master's own. */
const newJid = (): string => formatJid(Date.now() * 1000 + 500 + (jidSeq++ % 400));

describe('transport: nats, jobs signed by a master (threats.md #41)', { skip: natsSkip('the NATS signed-job tests') }, () => {
  let nats: NatsFixture;
  let nb: NatsBrine;
  let m1: Proc;
  let attacker: NatsConnection;
  let dir: string;
  const jobSubject = minionSubjects('m1').job;

  const job = (jid: string, command: string) => JSON.stringify({ t: 'job', jid, fun: 'cmd.run', arg: [command], kwarg: {}, tgt: 'm1', tgtType: 'glob' });
  const lines = (file: string): string[] =>
    fs.existsSync(file)
      ? fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .filter((l) => l !== '')
      : [];
  const drops = (pattern: RegExp): number => m1.output.split('\n').filter((l) => pattern.test(l)).length;

  before(async () => {
    nats = await startNats(1);
    nb = await NatsBrine.create(nats);
    dir = path.join(nb.cluster.root, 'markers');
    fs.mkdirSync(dir);
    await nb.startMaster();
    m1 = await nb.startAcceptedMinion('m1');
    attacker = await nats.connectMaster('brine');
  });
  after(async () => {
    await nb?.cleanup();
    await nats?.cleanup();
  });

  it('a job published on the job subject without a master signature, or signed by another key, is not run and is logged once per source', async () => {
    const unsigned = path.join(dir, 'unsigned');
    for (let i = 0; i < 3; i++) attacker.publish(jobSubject, job(newJid(), `touch ${unsigned}`));
    // signed in the right format, for this minion, by a key the enrolment file does not list
    const stranger = newEd25519().signer;
    const foreign = path.join(dir, 'foreign');
    for (let i = 0; i < 3; i++) {
      const payload = job(newJid(), `touch ${foreign}`);
      const sig = signJob(stranger, 'm1', payloadDigest(payload), Date.now());
      const h = natsHeaders();
      h.set(JOB_HEADERS.master, sig.master);
      h.set(JOB_HEADERS.issued, String(sig.issuedMs));
      h.set(JOB_HEADERS.expires, String(sig.expiresMs));
      h.set(JOB_HEADERS.sig, sig.sig);
      attacker.publish(jobSubject, payload, { headers: h });
    }
    await attacker.flush();
    // a signed job through the master after them: once it has run, the forged ones had their turn
    const ok = path.join(dir, 'ok');
    const r = await nb.brine(['run', 'm1', 'cmd.run', `touch ${ok}`, '--out', 'json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.ok(fs.existsSync(ok), 'the job signed by the master ran');
    await nothingFor(500, 'a forged job running', () => (fs.existsSync(unsigned) && 'the unsigned one') || (fs.existsSync(foreign) && 'the foreign-signed one'));
    assert.equal(fs.existsSync(unsigned), false, 'an unsigned job must not run');
    assert.equal(fs.existsSync(foreign), false, 'a job signed by a key that is no trusted master must not run');
    await waitUntil(() => drops(/dropped a job on NATS: it carries no master signature/) >= 1 || undefined, 5000, 'the unsigned jobs logged');
    assert.equal(drops(/dropped a job on NATS: it carries no master signature/), 1, `three unsigned jobs, one line:\n${m1.output}`);
    assert.equal(drops(/dropped a job on NATS: it is signed by a key that is not a master/), 1, `three foreign jobs, one line:\n${m1.output}`);
    assert.match(m1.output, /JOB_SIGNATURE_INVALID/);
  });

  it('a signed job runs once: a captured copy published again, or altered, does not run', async () => {
    const captured: Msg[] = [];
    const sub = attacker.subscribe(jobSubject, {
      callback: (_e, m) => {
        captured.push(m);
      },
    });
    await attacker.flush();
    const counter = path.join(dir, 'runs');
    const r = await nb.brine(['run', 'm1', 'cmd.run', `echo run >> ${counter}`, '--out', 'json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(lines(counter), ['run']);
    await waitUntil(() => captured.find((m) => m.string().includes(counter)), 5000, 'the signed job captured');
    sub.unsubscribe();
    const original = captured.find((m) => m.string().includes(counter)) as Msg;
    assert.ok(original.headers?.get(JOB_HEADERS.sig), 'the master signed the job');

    // the same signature on another jid and command: altered (logged; the replay after it comes
    // from the same claimed source within the minute, so it is counted, not logged again)
    const altered = JSON.parse(original.string()) as { jid: string; arg: string[] };
    altered.jid = newJid();
    altered.arg = [`echo altered >> ${counter}`];
    attacker.publish(jobSubject, JSON.stringify(altered), { headers: original.headers });
    // the very same bytes and headers again: a replay
    attacker.publish(jobSubject, original.data, { headers: original.headers });
    await attacker.flush();
    const after2 = path.join(dir, 'after');
    const again = await nb.brine(['run', 'm1', 'cmd.run', `touch ${after2}`, '--out', 'json']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    await nothingFor(500, 'the replayed or altered job running', () => lines(counter).length !== 1 && lines(counter));
    assert.deepEqual(lines(counter), ['run'], 'neither the replay nor the altered copy ran');
    await waitUntil(() => drops(/its signature does not verify/) >= 1 || undefined, 5000, 'the altered job logged');
  });
});
