// salt-api's lowstate and body formats: lists and single mappings, form semantics (repeated
// arg), runner/wheel inline kwargs, YAML with the core schema only, the api/rest_cherrypy
// section, batch sizes and the HTTP status of each error code.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiOptionsFrom, parseLowstate } from '../../../src/api/index.js';
import { errorBody, statusOf } from '../../../src/api/http-errors.js';
import { batchSize } from '../../../src/api/lowstate.js';
import { parseForm, parseYamlBody } from '../../../src/api/media.js';
import { BrineError, isBrineError } from '../../../src/util/errors.js';

const code = (fn: () => unknown, c: string, re?: RegExp) =>
  assert.throws(fn, (err: unknown) => {
    assert.ok(isBrineError(err), String(err));
    assert.equal(err.code, c);
    if (re) assert.match(err.message, re);
    return true;
  });

test('lowstate: a list of chunks, or one mapping (salt-api); everything else is API_BAD_REQUEST', () => {
  const [c] = parseLowstate({ client: 'local', tgt: '*', fun: 'test.echo', arg: 'hi' });
  assert.deepEqual(c, { client: 'local', fun: 'test.echo', tgt: '*', tgtType: 'glob', arg: ['hi'], kwarg: {} });
  const two = parseLowstate([
    { client: 'local_async', tgt: ['a', 'b'], tgt_type: 'list', fun: 'test.ping', timeout: '5' },
    { client: 'wheel', fun: 'key.accept', match: 'web*', include_rejected: true },
  ]);
  assert.equal(two[0]!.timeout, 5);
  assert.deepEqual(two[1]!.kwarg, { match: 'web*', include_rejected: true }, 'runner/wheel keys inline are kwargs');
  assert.deepEqual(parseLowstate([{ client: 'runner', fun: 'manage.match', tgt: 'web*', tgt_type: 'glob' }])[0]!.kwarg, { tgt: 'web*', tgt_type: 'glob' });
  assert.equal(parseLowstate([{ client: 'local', tgt: 'x', expr_form: 'pcre', fun: 'test.ping' }])[0]!.tgtType, 'pcre', 'the old expr_form name');
  for (const bad of [undefined, null, '', 'test.ping', 42, [], ['test.ping'], [null], Array(101).fill({ client: 'local', tgt: '*', fun: 'test.ping' })])
    code(() => parseLowstate(bad), 'API_BAD_REQUEST');
  code(() => parseLowstate([{ client: 'wheel_async', fun: 'key.list_all' }]), 'API_BAD_REQUEST', /unknown client 'wheel_async'/);
  code(() => parseLowstate([{ client: 'ssh', fun: 'test.ping', tgt: '*' }]), 'API_BAD_REQUEST', /unknown client/);
  code(() => parseLowstate([{ client: 'local', fun: 'test.ping' }]), 'API_BAD_REQUEST', /no tgt/);
  code(() => parseLowstate([{ client: 'local', tgt: '*' }]), 'API_BAD_REQUEST', /no fun/);
  code(() => parseLowstate([{ client: 'local', tgt: '*', fun: 'test.ping', tgt_type: 'sql' }]), 'API_BAD_REQUEST', /tgt_type/);
  code(() => parseLowstate([{ client: 'local', tgt: '*', fun: 'test.ping', kwarg: [1] }]), 'API_BAD_REQUEST', /kwarg/);
  code(() => parseLowstate([{ client: 'local', tgt: '*', fun: 'test.ping', timeout: 'soon' }]), 'API_BAD_REQUEST', /timeout/);
  code(() => parseLowstate([{ client: 'local_batch', tgt: '*', fun: 'test.ping' }]), 'API_BAD_REQUEST', /batch/);
  code(() => parseLowstate([{ client: 'local', tgt: [1], fun: 'test.ping' }]), 'API_BAD_REQUEST');
});

test('form bodies: repeated fields become lists; prototype names are refused', () => {
  assert.deepEqual(parseForm('client=local&tgt=*&fun=test.arg&arg=a&arg=b%20c'), { client: 'local', tgt: '*', fun: 'test.arg', arg: ['a', 'b c'] });
  assert.deepEqual(parseLowstate(parseForm('client=local&tgt=*&fun=test.echo&arg=one'))[0]!.arg, ['one']);
  code(() => parseForm('__proto__=x'), 'API_BAD_REQUEST');
  assert.equal(Object.getPrototypeOf(parseForm('constructor2=1')), Object.prototype);
});

test('YAML bodies: data only (no tags, no aliases), no prototype keys', () => {
  assert.deepEqual(parseYamlBody('- client: local\n  tgt: "*"\n  fun: test.ping\n'), [{ client: 'local', tgt: '*', fun: 'test.ping' }]);
  code(() => parseYamlBody('a: &a [1]\nb: *a\n'), 'API_BAD_REQUEST');
  code(
    () =>
      parseYamlBody(
        'a: &a [1]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      ),
    'API_BAD_REQUEST',
  );
  code(() => parseYamlBody('__proto__: {x: 1}'), 'API_BAD_REQUEST');
  code(() => parseYamlBody('a: [1'), 'API_BAD_REQUEST');
  assert.equal(typeof parseYamlBody('t: 2024-01-01'), 'object');
  assert.deepEqual(parseYamlBody('t: 2024-01-01'), { t: '2024-01-01' }, 'no timestamp type: a date stays a string');
});

test('api / rest_cherrypy options: defaults, the alias, refusals with CONFIG_VALUE', () => {
  assert.equal(apiOptionsFrom({}), undefined, 'off unless configured');
  const d = apiOptionsFrom({ api: {} })!;
  assert.deepEqual([d.port, d.host, d.disableSsl, d.maxBody, d.section], [8000, '127.0.0.1', false, 1048576, 'api']);
  assert.equal(apiOptionsFrom({ rest_cherrypy: { port: 8443, disable_ssl: true, thread_pool: 100 } })!.section, 'rest_cherrypy');
  assert.equal(apiOptionsFrom({ api: { port: 1 }, rest_cherrypy: { port: 2 } })!.port, 1, 'api wins');
  code(() => apiOptionsFrom({ api: { prot: 8000 } }), 'CONFIG_VALUE', /unknown key prot/);
  code(() => apiOptionsFrom({ api: { port: 70000 } }), 'CONFIG_VALUE', /port/);
  code(() => apiOptionsFrom({ api: { ssl_crt: '/x.crt' } }), 'CONFIG_VALUE', /both ssl_crt and ssl_key/);
  code(() => apiOptionsFrom({ api: { disable_ssl: 'yes' } }), 'CONFIG_VALUE');
  code(() => apiOptionsFrom({ api: { webhook_url: 'hook' } }), 'CONFIG_VALUE', /webhook_url/);
  code(() => apiOptionsFrom({ api: { cors_origins: ['evil.example'] } }), 'CONFIG_VALUE', /cors_origins/);
  assert.equal(apiOptionsFrom({ api: { webhook_url: '/hook/' } })!.webhookUrl, '/hook');
});

test('batch sizes and HTTP statuses', () => {
  assert.equal(batchSize('2', 10), 2);
  assert.equal(batchSize('25%', 10), 2);
  assert.equal(batchSize('1%', 10), 1);
  code(() => batchSize('0', 3), 'INVALID_BATCH');
  code(() => batchSize('150%', 3), 'INVALID_BATCH');
  code(() => batchSize('-1', 3), 'INVALID_BATCH');
  const cases: Array<[string, number]> = [
    ['TOKEN_MISSING', 401],
    ['TOKEN_EXPIRED', 401],
    ['TOKEN_KEY_CHANGED', 401],
    ['LOGIN_FAILED', 401],
    ['ACL_DENIED', 403],
    ['CSRF_REFUSED', 403],
    ['API_BAD_REQUEST', 400],
    ['API_BODY_TOO_LARGE', 413],
    ['LOGIN_THROTTLED', 429],
    ['INTERNAL', 500],
  ];
  for (const [c, s] of cases) assert.equal(statusOf(new BrineError(c as never, 'x')), s, c);
  const body = errorBody(new BrineError('ACL_DENIED', 'no'));
  assert.deepEqual(Object.keys(body), ['status', 'return', 'error']);
  assert.equal(body.error.code, 'ACL_DENIED');
  assert.ok(body.error.fix.length > 0);
});

test("lowstate: a local chunk's ret, ret_config and ret_kwargs (salt-api passes them to LocalClient); bad shapes are API_BAD_REQUEST", () => {
  const [c] = parseLowstate({ client: 'local', tgt: '*', fun: 'test.ping', ret: 'syslog,postgres', ret_config: 'alternative', ret_kwargs: { db: 'other' } });
  assert.deepEqual([c!.ret, c!.retConfig, c!.retKwargs, c!.kwarg], ['syslog,postgres', 'alternative', { db: 'other' }, {}]);
  assert.equal(parseLowstate({ client: 'local', tgt: '*', fun: 'test.ping' })[0]!.ret, undefined);
  code(() => parseLowstate({ client: 'local', tgt: '*', fun: 'test.ping', ret: ['postgres'] }), 'API_BAD_REQUEST', /ret must be returner names/);
  code(() => parseLowstate({ client: 'local', tgt: '*', fun: 'test.ping', ret_kwargs: 'db=x' }), 'API_BAD_REQUEST', /ret_kwargs must be a mapping/);
});
