// mine_functions as Salt reads them: config merged over pillar (config wins), and each entry's
// forms (empty list, positional list, list with mappings, mapping, alias with mine_function,
// allow_tgt/allow_tgt_type); an unreadable entry is reported beside the others.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeMineFunctions, mergeMineFunctions, parseMineEntry, parseMineFunctions } from '../../../../src/minion/mine/mine-functions.js';

test('config entries win over pillar entries of the same name; other pillar entries are added', () => {
  assert.deepEqual(mergeMineFunctions({ 'test.ping': [], ip: ['eth0'] }, { ip: ['eth1'], extra: [] }), { ip: ['eth0'], extra: [], 'test.ping': [] });
  assert.deepEqual(mergeMineFunctions(undefined, 'not a map'), {});
});

test("Salt's entry forms", () => {
  assert.deepEqual(parseMineEntry('network.ip_addrs', []), { name: 'network.ip_addrs', fun: 'network.ip_addrs', arg: [], kwarg: {} });
  assert.deepEqual(parseMineEntry('network.ip_addrs', null), { name: 'network.ip_addrs', fun: 'network.ip_addrs', arg: [], kwarg: {} });
  assert.deepEqual(parseMineEntry('network.ip_addrs', ['eth0']), { name: 'network.ip_addrs', fun: 'network.ip_addrs', arg: ['eth0'], kwarg: {} });
  assert.deepEqual(parseMineEntry('network.ip_addrs', { interface: 'eth0', cidr: '10.0.0.0/8' }), {
    name: 'network.ip_addrs',
    fun: 'network.ip_addrs',
    arg: [],
    kwarg: { interface: 'eth0', cidr: '10.0.0.0/8' },
  });
  assert.deepEqual(parseMineEntry('test.arg', ["isn't", 'this', { this: 'that' }, { salt: 'stack' }]), {
    name: 'test.arg',
    fun: 'test.arg',
    arg: ["isn't", 'this'],
    kwarg: { this: 'that', salt: 'stack' },
  });
  assert.deepEqual(parseMineEntry('ip_list', [{ mine_function: 'grains.get' }, 'ip_interfaces', { allow_tgt: 'G@role:master' }, { allow_tgt_type: 'compound' }]), {
    name: 'ip_list',
    fun: 'grains.get',
    arg: ['ip_interfaces'],
    kwarg: {},
    allowTgt: 'G@role:master',
    allowTgtType: 'compound',
  });
  assert.deepEqual(parseMineEntry('addrs', { mine_function: 'network.ip_addrs', allow_tgt: 'web*' }), {
    name: 'addrs',
    fun: 'network.ip_addrs',
    arg: [],
    kwarg: {},
    allowTgt: 'web*',
    allowTgtType: 'glob',
  });
});

test('unreadable entries are CONFIG_VALUE errors naming the entry, and the others still parse', () => {
  const { functions, problems } = parseMineFunctions({
    'test.ping': [],
    'network.ip_addrs': 'eth0',
    alias_without_function: ['x'],
    bad_acl: [{ mine_function: 'test.ping' }, { allow_tgt: 'x', allow_tgt_type: 'bogus' }],
    'bad/name': [],
  });
  assert.deepEqual(
    functions.map((f) => f.name),
    ['test.ping'],
  );
  assert.deepEqual(
    problems.map((p) => [p.name, p.error.code]),
    [
      ['network.ip_addrs', 'CONFIG_VALUE'],
      ['alias_without_function', 'CONFIG_VALUE'],
      ['bad_acl', 'CONFIG_VALUE'],
      ['bad/name', 'CONFIG_VALUE'],
    ],
  );
  assert.match(problems[0]!.error.message, /network\.ip_addrs.*must be a list of arguments or a mapping.*\["eth0"\]/);
  assert.match(problems[1]!.error.message, /mine_function: module\.function/);
});

test('mine.valid shows aliases with their function', () => {
  const { functions } = parseMineFunctions({ 'test.ping': [], ip_list: [{ mine_function: 'grains.get' }, 'ipv4'], kw: { mine_function: 'test.arg', a: 1 } });
  assert.deepEqual(describeMineFunctions(functions), { 'test.ping': [], ip_list: { 'grains.get': ['ipv4'] }, kw: { 'test.arg': [{ a: 1 }] } });
});
