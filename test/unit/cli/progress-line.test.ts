// The counter `brine run` shows on a terminal (issue 26), driven by a fake clock: the text, the
// redraw each second, cleared around each printed block and gone after stop().

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProgressLine } from '../../../src/cli/run/progress-line.js';
import { FakeClock } from '../../../src/util/clock.js';

const CLEAR = '\r\x1b[K';

test('progress line: counts returns and failures, shows elapsed seconds, clears before each block and at stop', () => {
  const clock = new FakeClock();
  let out = '';
  const line = new ProgressLine((t) => (out += t), clock);
  line.start(3);
  assert.equal(out, `${CLEAR}returned 0/3, failed 0, 0s`);
  clock.advance(2000);
  assert.ok(out.endsWith(`${CLEAR}returned 0/3, failed 0, 2s`), JSON.stringify(out));
  out = '';
  line.around(() => (out += 'web1:\n    True\n'), { returned: true, failed: false });
  // cleared first, so the block starts at column 0, then redrawn under it
  assert.equal(out, `${CLEAR}web1:\n    True\n${CLEAR}returned 1/3, failed 0, 2s`);
  line.around(() => undefined, { returned: false, failed: true });
  line.around(() => undefined, { returned: true, failed: true });
  assert.equal(line.text(), 'returned 2/3, failed 2, 2s');
  out = '';
  line.around(() => (out += 'web3:\n    True\n'), { returned: true, failed: false });
  assert.equal(out, `${CLEAR}web3:\n    True\n`, 'the last return gets no counter under it');
  out = '';
  line.stop();
  assert.equal(out, '', 'nothing left to clear');
  assert.equal(clock.pending, 0, 'no timer left to keep the process alive');
  clock.advance(5000);
  line.stop();
  assert.equal(out, '', 'nothing drawn after stop');
});

test('progress line: a line printed above it (brine run --progress) clears it first and redraws it under the line', () => {
  const clock = new FakeClock();
  let out = '';
  const line = new ProgressLine((t) => (out += t), clock);
  line.start(1);
  out = '';
  line.above(() => (out += '  Name: first - Function: test.nop - Result: Clean\n'));
  assert.equal(out, `${CLEAR}  Name: first - Function: test.nop - Result: Clean\n${CLEAR}returned 0/1, failed 0, 0s`);
  line.stop();
  out = '';
  line.above(() => (out += 'x\n'));
  assert.equal(out, 'x\n', 'after stop: the line alone, no counter');
});
