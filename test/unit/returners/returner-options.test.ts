// Salt's get_returner_options: flat `<prefix>.<attr>` keys or a `<prefix>` map, the ret_config
// alternative set before the plain one, Salt's defaults for what is unset or empty, and
// ret_kwargs over everything; and the registry's names.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildReturner, jidStartTime, returnerNames, returnerOptions } from '../../../src/returners/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const ATTRS = ['host', 'port', 'db'];
const DEFAULTS = { host: 'localhost', port: 5432, db: 'salt' };

describe('returnerOptions', () => {
  it('reads flat keys, then a mapping, then the defaults', () => {
    assert.deepEqual(returnerOptions({ 'returner.postgres.host': 'db1' }, 'returner.postgres', ATTRS, DEFAULTS), { host: 'db1', port: 5432, db: 'salt' });
    assert.deepEqual(returnerOptions({ 'returner.postgres': { host: 'db2', port: 6432 } }, 'returner.postgres', ATTRS, DEFAULTS), { host: 'db2', port: 6432, db: 'salt' });
    assert.deepEqual(returnerOptions({ 'returner.postgres.host': '' }, 'returner.postgres', ATTRS, DEFAULTS).host, 'localhost', 'an empty value falls back, as in Salt');
  });

  it('ret_config chooses the alternative set, falling back to the plain option per attribute; ret_kwargs win', () => {
    const opts = { 'returner.postgres.host': 'db1', 'returner.postgres.db': 'main', 'alt.returner.postgres.db': 'other' };
    assert.deepEqual(returnerOptions(opts, 'returner.postgres', ATTRS, DEFAULTS, { ret_config: 'alt' }), { host: 'db1', port: 5432, db: 'other' });
    assert.deepEqual(returnerOptions(opts, 'returner.postgres', ATTRS, DEFAULTS, { ret_config: 'alt', ret_kwargs: { db: 'x', host: 'h' } }), { host: 'h', port: 5432, db: 'x' });
  });
});

describe('the registry', () => {
  it('splits --return values on commas, each name once, and takes lists', () => {
    assert.deepEqual(returnerNames('syslog, postgres,syslog'), ['syslog', 'postgres']);
    assert.deepEqual(returnerNames(['postgres', 'local_cache']), ['postgres', 'local_cache']);
    assert.deepEqual(returnerNames(''), []);
    assert.deepEqual(returnerNames(undefined), []);
  });

  it('an unknown returner is RETURNER_UNKNOWN listing the ones there are', () => {
    assert.throws(
      () => buildReturner('redis', { opts: {}, id: 'm', program: 'brine-minion' }),
      (err: unknown) => isBrineError(err) && err.code === 'RETURNER_UNKNOWN' && /there is no returner 'redis': use one of local_cache, postgres, syslog/.test(err.message),
    );
    assert.throws(() => buildReturner('__proto__', { opts: {}, id: 'm', program: 'brine-minion' }), /RETURNER_UNKNOWN|no returner/);
  });

  it('local_cache stores nothing more (brine’s job cache has the return)', async () => {
    const r = buildReturner('local_cache', { opts: {}, id: 'm', program: 'brine-minion' });
    await r.returner({ id: 'a', jid: '20261207063000000001', fun: 'test.ping', fun_args: [], return: true, retcode: 0, success: true });
  });

  it("formats a jid as Salt's StartTime", () => {
    assert.equal(jidStartTime('20261207063000123456'), '2026, Dec 07 06:30:00.123456');
    assert.equal(jidStartTime('req'), '');
  });
});
