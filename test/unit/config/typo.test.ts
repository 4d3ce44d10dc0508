import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editDistance, suggestOption } from '../../../src/config/index.js';

test('editDistance counts a swap of neighbours as one edit', () => {
  assert.equal(editDistance('master_port', 'master_port'), 0);
  assert.equal(editDistance('mastr_port', 'master_port'), 1);
  assert.equal(editDistance('master_prot', 'master_port'), 1);
  assert.equal(editDistance('masterport', 'master_port'), 1);
  assert.equal(editDistance('master_portx', 'master_port'), 1);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('ca', 'abc'), 3, 'optimal string alignment: no edit of a swapped pair');
});

test('suggestOption finds a near-miss and ignores unrelated or too-short names', () => {
  assert.equal(suggestOption('recon_defualt'), 'recon_default');
  assert.equal(suggestOption('heartbeat_timout'), 'heartbeat_timeout');
  assert.equal(suggestOption('master_port'), undefined, 'an exact name is not a typo');
  assert.equal(suggestOption('mysql.host'), undefined);
  assert.equal(suggestOption('di'), undefined, "'id' is too short to guess at");
  assert.equal(suggestOption('mastr_prt'), undefined, 'two edits away is not suggested');
});
