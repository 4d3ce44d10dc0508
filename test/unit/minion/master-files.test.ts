// The minion's view of the master's file server (src/minion/master-files.ts): requests go out on
// a ready link and are matched to replies by rid; no link, a link going down and a master that
// never answers are FILESERVER_UNAVAILABLE (timing on a fake clock); the master's coded errors
// come back with their code.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/util/clock.js';
import { BrineError } from '../../../src/util/errors.js';
import type { FileReply, MinionMessage } from '../../../src/protocol/index.js';
import { MasterFileSource, type FileLink } from '../../../src/minion/master-files.js';

class StubLink implements FileLink {
  ready = true;
  readonly sent: MinionMessage[] = [];
  send(m: MinionMessage): boolean {
    this.sent.push(m);
    return true;
  }
  lastRid(): number {
    return (this.sent.at(-1) as { rid: number }).rid;
  }
}

const unavailable = (pattern: RegExp) => (e: unknown) => e instanceof BrineError && e.code === 'FILESERVER_UNAVAILABLE' && pattern.test(e.message);

describe('MasterFileSource', () => {
  it('with no ready link fails at once, saying how to use local files', async () => {
    const link = new StubLink();
    link.ready = false;
    const src = new MasterFileSource(() => [link], new FakeClock());
    await assert.rejects(src.listEnvs(), unavailable(/no master is connected.*file_client: local/));
    assert.equal(link.sent.length, 0);
  });

  it('sends on the first ready link and matches replies by rid, in any order', async () => {
    const down = new StubLink();
    down.ready = false;
    const link = new StubLink();
    const src = new MasterFileSource(() => [down, link], new FakeClock());
    const a = src.stat('base', 'a.txt');
    const ridA = link.lastRid();
    const b = src.read('base', 'b.bin', 0, 10);
    const ridB = link.lastRid();
    assert.notEqual(ridA, ridB);
    src.onReply({ t: 'file_reply', rid: ridB, ok: true, data: Buffer.from('hi').toString('base64'), eof: true });
    src.onReply({ t: 'file_reply', rid: ridA, ok: false, error: { code: 'FILE_NOT_FOUND', message: 'no' } });
    assert.equal(await a, undefined, 'FILE_NOT_FOUND from stat means no such file');
    assert.deepEqual(await b, { data: Buffer.from('hi'), eof: true });
    assert.deepEqual(link.sent[1], { t: 'file_read', saltenv: 'base', path: 'b.bin', offset: 0, length: 10, rid: ridB });
  });

  it("passes the master's refusal on with its code", async () => {
    const link = new StubLink();
    const src = new MasterFileSource(() => [link], new FakeClock());
    const p = src.list('base', '', 'files');
    const reply: FileReply = { t: 'file_reply', rid: link.lastRid(), ok: false, error: { code: 'PATH_REFUSED', message: 'nope' } };
    src.onReply(reply);
    await assert.rejects(p, (e: unknown) => e instanceof BrineError && e.code === 'PATH_REFUSED');
  });

  it('a link going down fails its outstanding requests, not those of other links', async () => {
    const one = new StubLink();
    const two = new StubLink();
    let links = [one];
    const src = new MasterFileSource(() => links, new FakeClock());
    const p1 = src.listEnvs();
    links = [two];
    const p2 = src.listEnvs();
    src.onLinkDown(one);
    await assert.rejects(p1, unavailable(/connection to the master closed/));
    src.onReply({ t: 'file_reply', rid: two.lastRid(), ok: true, list: ['base'] });
    assert.deepEqual(await p2, ['base']);
  });

  it('a master that never answers fails the request after the timeout', async () => {
    const clock = new FakeClock();
    const link = new StubLink();
    const src = new MasterFileSource(() => [link], clock, 1000);
    let settled = false;
    const p = src.listEnvs().finally(() => (settled = true));
    clock.advance(999);
    await Promise.resolve();
    assert.equal(settled, false);
    clock.advance(1);
    await assert.rejects(p, unavailable(/did not answer a file_list within 1 s/));
    // a late reply is ignored
    src.onReply({ t: 'file_reply', rid: link.lastRid(), ok: true, list: [] });
  });
});
