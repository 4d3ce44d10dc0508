// salt-run's output of a runner's return (formatRunnerReturn): the value itself with no minion ID
// above it, and a return of {outputter, data} printed with that outputter unless --out chose one.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatRunnerReturn } from '../../../src/cli/output/index.js';

describe('formatRunnerReturn', () => {
  it('prints nested values without an ID, as salt-run does', () => {
    assert.equal(formatRunnerReturn(undefined, ['web1', 'web2'], { color: false }), '- web1\n- web2\n');
    assert.equal(formatRunnerReturn(undefined, { up: ['web1'], down: [] }, { color: false }), 'down:\nup:\n    - web1\n');
    assert.equal(formatRunnerReturn(undefined, "'nope' is not available.", { color: false }), "'nope' is not available.\n");
  });

  it('json and yaml print the return alone', () => {
    assert.equal(formatRunnerReturn('json', { up: ['web1'] }, { color: false }), '{\n    "up": [\n        "web1"\n    ]\n}\n');
    assert.equal(formatRunnerReturn('json', true, { color: false, indent: -1 }), 'true\n');
    assert.equal(formatRunnerReturn('yaml', { b: 1, a: [2] }, { color: false }), 'a:\n  - 2\nb: 1\n');
  });

  it('a return naming its outputter is printed with it, unless --out chose another', () => {
    const ret = { outputter: 'json', data: { web1: 'ok' } };
    assert.equal(formatRunnerReturn(undefined, ret, { color: false }), '{\n    "web1": "ok"\n}\n');
    assert.equal(formatRunnerReturn('yaml', ret, { color: false }), 'web1: ok\n');
  });
});
