import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Feature, FeatureList } from '../../../src/util/features.js';

function recorder(name: string, seen: string[], opts: { handles?: string; throwsOn?: string } = {}): Feature<string, string> {
  const hit = (hook: string) => {
    seen.push(`${name}.${hook}`);
    if (opts.throwsOn === hook) throw new Error(`${name} ${hook} broke`);
  };
  return {
    name,
    start: () => hit('start'),
    onReady: (peer) => hit(`ready(${peer})`),
    onDown: (peer, reason) => hit(`down(${peer},${reason})`),
    onMessage: (m) => {
      hit(`message(${m})`);
      return m === opts.handles;
    },
    stop: () => hit('stop'),
  };
}

describe('FeatureList', () => {
  it('starts in order, stops in reverse, and passes ready/down to every feature', async () => {
    const seen: string[] = [];
    const list = new FeatureList([recorder('files', seen), recorder('mine', seen)], () => assert.fail('no errors expected'));
    await list.start();
    list.ready('m1');
    list.down('m1', 'peer_closed');
    await list.stop();
    assert.deepEqual(seen, ['files.start', 'mine.start', 'files.ready(m1)', 'mine.ready(m1)', 'files.down(m1,peer_closed)', 'mine.down(m1,peer_closed)', 'mine.stop', 'files.stop']);
    assert.deepEqual(list.names, ['files', 'mine']);
  });

  it('a message goes to features in order until one handles it', () => {
    const seen: string[] = [];
    const list = new FeatureList([recorder('a', seen), recorder('b', seen, { handles: 'job' }), recorder('c', seen)], () => {});
    assert.equal(list.message('job', 'm1'), true);
    assert.deepEqual(seen, ['a.message(job)', 'b.message(job)']);
    seen.length = 0;
    assert.equal(list.message('other', 'm1'), false, 'nobody handled it');
    assert.deepEqual(seen, ['a.message(other)', 'b.message(other)', 'c.message(other)']);
  });

  it('a hook that throws is reported with its feature and hook, and the other features still run', async () => {
    const seen: string[] = [];
    const errors: string[] = [];
    const list = new FeatureList([recorder('a', seen, { throwsOn: 'ready(m1)' }), recorder('b', seen, { throwsOn: 'stop' }), recorder('c', seen)], (f, hook, err) =>
      errors.push(`${f}/${hook}: ${(err as Error).message}`),
    );
    list.ready('m1');
    await list.stop();
    assert.deepEqual(seen, ['a.ready(m1)', 'b.ready(m1)', 'c.ready(m1)', 'c.stop', 'b.stop', 'a.stop']);
    assert.deepEqual(errors, ['a/onReady: a ready(m1) broke', 'b/stop: b stop broke']);
  });
});
