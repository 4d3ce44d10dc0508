// Issue 22: test.check_pillar (mysql-formula's server_checks.sls) answers as Salt 3007's
// salt/states/test.py check_pillar: nested keys, Python's type names in the comment, a boolean
// passing the integer check, verbose listing, and a failure when no key is given.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runState } from './state-ctx.js';

const pillar = { mysql: { server: { root_password: 's3cret', port: 3306, ssl: true, hosts: ['a'], opts: { x: 1 }, nothing: null } } };
const exec = { pillar: () => pillar };

describe('test.check_pillar (salt/states/test.py)', () => {
  it('a present nested key passes with an empty comment, in test and real mode', async () => {
    for (const test of [false, true]) {
      assert.deepEqual(await runState('test.check_pillar', { name: 'chk', present: ['mysql:server:root_password'] }, { exec, test }), {
        name: 'chk',
        result: true,
        changes: {},
        comment: '',
      });
    }
  });

  it('names each missing key and each key of the wrong type as Salt prints them', async () => {
    const r = await runState(
      'test.check_pillar',
      {
        name: 'chk',
        present: 'mysql:server:nope',
        string: ['mysql:server:port'],
        integer: ['mysql:server:ssl', 'mysql:server:root_password'],
        listing: 'mysql:server:nothing',
        dictionary: ['mysql:server:hosts'],
      },
      { exec, test: true },
    );
    assert.equal(r.result, false);
    assert.deepEqual(r.changes, {});
    assert.equal(
      r.comment,
      [
        'Pillar key "mysql:server:nope" is missing.',
        `Pillar key "mysql:server:root_password" is not <class 'int'>.`,
        `Pillar key "mysql:server:port" is not (<class 'str'>,).`,
        'Pillar key "mysql:server:nothing" is missing.',
        `Pillar key "mysql:server:hosts" is not <class 'dict'>.`,
        '',
      ].join('\n'),
    );
  });

  it('verbose lists the keys that passed, with their type', async () => {
    const r = await runState('test.check_pillar', { name: 'chk', present: ['mysql'], boolean: 'mysql:server:ssl', dictionary: ['mysql:server:opts'], verbose: true }, { exec });
    assert.deepEqual(r, {
      name: 'chk',
      result: true,
      changes: {},
      comment: `Those keys passed the check:\n- mysql (None)\n- mysql:server:ssl (<class 'bool'>)\n- mysql:server:opts (<class 'dict'>)\n`,
    });
  });

  it('no key to check fails that state with Salt message; a key list of the wrong shape is named', async () => {
    assert.deepEqual(await runState('test.check_pillar', { name: 'chk' }, { exec }), { name: 'chk', result: false, changes: {}, comment: 'Missing required argument text.' });
    const bad = await runState('test.check_pillar', { name: 'chk', present: { a: 1 } }, { exec });
    assert.equal(bad.result, false);
    assert.match(bad.comment, /present must be a key or a list of keys/);
  });
});
