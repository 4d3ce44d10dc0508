// Issue 27 point 1: a minion that says carryAcks gets its acks on the master's next frame to it,
// in the same write (one TLS record), ack first; or alone once ack_carry_delay passed. A minion
// without it gets an ack frame at once. A real MinionSession over a channel that records each
// write as the bytes a socket would get; the clock is fake (the deadline is timing logic).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Session } from 'node:inspector/promises';
import { MinionSession, type MinionSessionHooks } from '../../../src/master/minion-session.js';
import { ACK_CARRY_MAX_DELAY_MS, CarriedAcks } from '../../../src/master/carried-acks.js';
import { FrameDecoder, MAX_CARRIED_ACKS, encodeMessage, prepareMessage, type Channel, type ChannelClose, type Job, type MasterMessage, type MinionMessage } from '../../../src/protocol/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { TimerWheel } from '../../../src/util/timer-wheel.js';
import { silentLogger } from '../../../src/util/logger.js';

const JID = '20270101000000000001';
const JID2 = '20270101000000000002';

/** A channel whose every send is one write: kept as the frames that write held, decoded. */
class WriteRecorder implements Channel<MinionMessage, MasterMessage> {
  readonly remoteAddress = '10.0.0.1:40000';
  readonly peerFingerprint = 'fp';
  readonly peerPublicKeyPem = '';
  closed = false;
  readonly writes: Array<Array<Record<string, unknown>>> = [];
  private onMsg: (m: MinionMessage) => void = () => undefined;
  private onCl: (i: ChannelClose) => void = () => undefined;

  send(message: MasterMessage): boolean {
    if (this.closed) return false;
    const payloads = new FrameDecoder(1 << 24).push(encodeMessage(message));
    this.writes.push(payloads.map((p) => JSON.parse(p.toString('utf8')) as Record<string, unknown>));
    return true;
  }
  close(reason: ChannelClose['reason']): void {
    if (this.closed) return;
    this.closed = true;
    this.onCl({ reason, local: true });
  }
  /** The minion hung up. */
  peerClose(): void {
    this.closed = true;
    this.onCl({ reason: 'peer_closed', local: false });
  }
  deliver(m: MinionMessage): void {
    this.onMsg(m);
  }
  onMessage(fn: (m: MinionMessage) => void): void {
    this.onMsg = fn;
  }
  onClose(fn: (i: ChannelClose) => void): void {
    this.onCl = fn;
  }
  setMaxFrame(): void {}
  /** The writes after the auth answer, each as its frames' types (and jids for acks). */
  after(n: number): string[][] {
    return this.writes.slice(n).map((w) => w.map((f) => (f.t === 'acks' ? `acks:${(f.jids as string[]).join(',')}` : f.t === 'ack' ? `ack:${String(f.jid)}` : String(f.t))));
  }
}

const hooks: MinionSessionHooks = {
  authorize: () => ({ status: 'accepted', message: '' }),
  probe: () => ({ status: 'accepted', message: '' }),
  onAuthenticated: () => undefined,
  onReturn: () => undefined,
  onClosed: () => undefined,
};

function open(opts: { carry: boolean; delayMs?: number; wheel?: boolean; clock?: FakeClock }) {
  const clock = opts.clock ?? new FakeClock(0);
  const ch = new WriteRecorder();
  const session = new MinionSession(
    ch,
    clock,
    silentLogger(),
    {
      handshakeTimeoutMs: 5000,
      heartbeatIntervalMs: 60_000,
      heartbeatTimeoutMs: 180_000,
      maxFrame: 1 << 20,
      masterFingerprint: 'm',
      ...(opts.delayMs === undefined ? {} : { ackCarryDelayMs: opts.delayMs }),
      ...(opts.wheel ? { heartbeatTimers: new TimerWheel(clock, 100) } : {}),
    },
    hooks,
  );
  ch.deliver({ t: 'hello', versions: [1], id: 'web1', agent: 'test', ...(opts.carry ? { carryAcks: true } : {}) });
  assert.equal(session.ready, true);
  assert.deepEqual(ch.after(0), [['auth']]);
  return { clock, ch, session };
}

function job(jid: string): Readonly<Job> {
  return prepareMessage<Job>({ t: 'job', jid, fun: 'test.ping', arg: [], kwarg: {}, tgt: '*', tgtType: 'glob' });
}

/** Live instances of the class whose prototype this is (the inspector's queryObjects, after a full GC). */
async function instancesOf(proto: object): Promise<number> {
  const inspector = new Session();
  inspector.connect();
  const g = globalThis as { __brineProbe?: object };
  g.__brineProbe = proto;
  try {
    const { result } = await inspector.post('Runtime.evaluate', { expression: 'globalThis.__brineProbe' });
    const { objects } = await inspector.post('Runtime.queryObjects', { prototypeObjectId: result.objectId! });
    const count = await inspector.post('Runtime.callFunctionOn', { objectId: objects.objectId!, functionDeclaration: 'function () { return this.length; }', returnByValue: true });
    return count.result.value as number;
  } finally {
    delete g.__brineProbe;
    inspector.disconnect();
  }
}

describe('carried acks (issue 27)', () => {
  it('a session holds no CarriedAcks until its first ack (an idle fleet allocates none at sign-in)', async () => {
    const before = await instancesOf(CarriedAcks.prototype);
    const sessions = [open({ carry: true }), open({ carry: true }), open({ carry: true })];
    assert.equal(await instancesOf(CarriedAcks.prototype), before, 'signed in, no ack yet');
    sessions[0]!.session.sendAck(JID);
    assert.equal(await instancesOf(CarriedAcks.prototype), before + 1);
    sessions[0]!.session.sendJob(job(JID2));
    assert.deepEqual(sessions[0]!.ch.after(1), [[`acks:${JID}`, 'job']]);
  });

  it('a minion without carryAcks gets an ack frame at once, as before', () => {
    const { ch, session } = open({ carry: false });
    session.sendAck(JID);
    assert.deepEqual(ch.after(1), [[`ack:${JID}`]]);
  });

  it('a held ack rides in the same write as the next job, before it', () => {
    const { ch, session, clock } = open({ carry: true });
    session.sendAck(JID);
    assert.deepEqual(ch.after(1), [], 'nothing is written for the ack itself');
    session.sendJob(job(JID2));
    assert.deepEqual(ch.after(1), [[`acks:${JID}`, 'job']]);
    // taken: the deadline no longer sends it again
    clock.advance(ACK_CARRY_MAX_DELAY_MS * 3);
    assert.deepEqual(ch.after(2), []);
  });

  it('every kind of frame carries: a pong answering the ping, a file reply, a find_job', () => {
    const { ch, session } = open({ carry: true });
    session.sendAck(JID);
    session.sendAck(JID2);
    ch.deliver({ t: 'ping', seq: 4 });
    session.sendAck(JID);
    session.sendFileReply({ t: 'file_reply', rid: 1, ok: true, list: [] });
    session.sendAck(JID2);
    session.sendFindJob(JID);
    assert.deepEqual(ch.after(1), [
      [`acks:${JID},${JID2}`, 'pong'],
      [`acks:${JID}`, 'file_reply'],
      [`acks:${JID2}`, 'find_job'],
    ]);
  });

  it('a minion that gets no frame (it never pings) gets its acks alone at the deadline, not before', () => {
    const { ch, session, clock } = open({ carry: true, delayMs: 1500 });
    session.sendAck(JID);
    clock.advance(700);
    session.sendAck(JID2);
    clock.advance(799);
    assert.deepEqual(ch.after(1), [], 'held for the first ack`s deadline');
    clock.advance(1);
    assert.deepEqual(ch.after(1), [[`acks:${JID},${JID2}`]]);
    clock.advance(10_000);
    assert.equal(ch.writes.length, 2, 'sent once');
  });

  it("on the master's shared timer wheel: no earlier than the delay, at most a tick later", () => {
    const { ch, session, clock } = open({ carry: true, wheel: true, delayMs: 1000 });
    session.sendAck(JID);
    clock.advance(999);
    assert.deepEqual(ch.after(1), []);
    clock.advance(101);
    assert.deepEqual(ch.after(1), [[`acks:${JID}`]]);
  });

  it('without ack_carry_delay in the settings the default deadline applies', () => {
    const { ch, session, clock } = open({ carry: true });
    session.sendAck(JID);
    clock.advance(ACK_CARRY_MAX_DELAY_MS - 1);
    assert.deepEqual(ch.after(1), []);
    clock.advance(1);
    assert.deepEqual(ch.after(1), [[`acks:${JID}`]]);
  });

  it('a full frame of acks goes at once', () => {
    const { ch, session } = open({ carry: true });
    for (let i = 0; i < MAX_CARRIED_ACKS; i++) session.sendAck(`2027010100000${String(i).padStart(7, '0')}`);
    assert.equal(ch.writes.length, 2);
    assert.equal((ch.writes[1]![0]!.jids as string[]).length, MAX_CARRIED_ACKS);
  });

  it('a peer close drops held acks (the minion resends those returns); a shutdown bye carries them', () => {
    const a = open({ carry: true });
    a.session.sendAck(JID);
    a.ch.peerClose();
    a.clock.advance(ACK_CARRY_MAX_DELAY_MS * 2);
    assert.deepEqual(a.ch.after(1), []);
    const b = open({ carry: true });
    b.session.sendAck(JID);
    b.session.close('shutdown');
    assert.deepEqual(b.ch.after(1), [[`acks:${JID}`, 'bye']]);
  });

  it('ack_carry_delay 0 sends every ack at once even to a minion that carries', () => {
    const { ch, session } = open({ carry: true, delayMs: 0 });
    session.sendAck(JID);
    assert.deepEqual(ch.after(1), [[`ack:${JID}`]]);
  });

  it('one fleet job carries each session its own acks (the shared encoding never mixes them up)', () => {
    const clock = new FakeClock(0);
    const a = open({ carry: true, clock });
    const b = open({ carry: true, clock });
    const c = open({ carry: true, clock });
    const next = job(JID2);
    a.session.sendAck(JID);
    b.session.sendAck(JID);
    c.session.sendAck('20270101000000000009');
    for (const s of [a, b, c]) s.session.sendJob(next);
    assert.deepEqual(a.ch.after(1), [[`acks:${JID}`, 'job']]);
    assert.deepEqual(b.ch.after(1), [[`acks:${JID}`, 'job']]);
    assert.deepEqual(c.ch.after(1), [['acks:20270101000000000009', 'job']]);
    // a session with nothing held gets the job alone
    a.session.sendJob(next);
    assert.deepEqual(a.ch.after(2), [['job']]);
  });
});
