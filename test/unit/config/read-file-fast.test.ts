// issue 12: configs are read by util/yaml-fast.ts with the config schema's scalar rules
// (resolveConfigScalar) and the `yaml` package only when that scanner is unsure. Whatever the
// fast path decides must be exactly what the full YAML 1.1 parse gives.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configParseOptions, parseConfigText, resolveConfigScalar } from '../../../src/config/read-file.js';
import { BAIL, fastLoadYaml } from '../../../src/util/yaml-fast.js';
import { yamlPackage } from '../../../src/util/yaml-package.js';

const full = (text: string): unknown => yamlPackage().parseDocument(text, configParseOptions()).toJS({ maxAliasCount: 100 });

const TYPICAL = [
  'root_dir: /tmp/b\ninterface: 127.0.0.1\n',
  'root_dir: "/srv/brine"\nret_port: 4506\nauto_accept: True\nlog_level: warning\n',
  '# a comment\nmaster:\n  - salt1.example.com\n  - salt2.example.com\nmaster_type: failover\nid: web1 # trailing\n',
  "file_roots:\n  base:\n    - /srv/salt\n    - '/srv/other salt'\npillar_roots:\n  base: [/srv/pillar]\n",
  'nodegroups:\n  web: "L@web1,web2"\n  db: G@role:db\nkeep_jobs_seconds: 86400\nopen_mode: off\nhash_type: sha256\n',
  'user: brine\nsock_group:\ntimeout: 5\ngather_job_timeout: -1\nzero: 0\nacceptance_wait_time: 0.5\n',
];

test('typical configs take the fast path and read exactly as the yaml package reads them', () => {
  for (const text of TYPICAL) {
    const fast = fastLoadYaml(text, resolveConfigScalar);
    if (text.includes('[')) assert.equal(fast, BAIL, 'flow collections are the full parser’s');
    else assert.notEqual(fast, BAIL, text);
    assert.deepEqual(parseConfigText(text, 'x.conf'), full(text), text);
  }
});

test('every scalar the config resolver decides is what the YAML 1.1 schema (without timestamps) makes of it', () => {
  const words = [
    ...['y', 'Y', 'n', 'N', 'yes', 'Yes', 'YES', 'no', 'No', 'NO', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'on', 'On', 'ON', 'off', 'Off', 'OFF', 'yES', 'oN'],
    ...['~', 'null', 'Null', 'NULL', 'nULL', 'None', ''],
    ...[
      '0',
      '-0',
      '+0',
      '7',
      '-12',
      '007',
      '0755',
      '0x1F',
      '0b101',
      '1_000',
      '1e3',
      '1.5',
      '-1.5e-3',
      '.5',
      '.inf',
      '-.inf',
      '.nan',
      '.NaN',
      '12:30',
      '190:20:30',
      '2024-01-01',
      '2024-01-01 10:00:00',
      '123456789012345',
      '1234567890123456789',
    ],
    ...[
      'web1',
      'web-*',
      '/srv/salt',
      '127.0.0.1',
      '10.0.0.255',
      '1.2.3',
      '1.2.3.4.5',
      'E3',
      'e+3',
      'e3x',
      '1.2.3e4',
      '1..2',
      'L@a,b',
      'G@os:Debian',
      '<<',
      '=',
      'sha256',
      'a b',
      'Infinity',
      'NaN',
      'inf',
      'x.y',
      '-x',
      '+x',
      '.x',
      'e3',
      '_1',
    ],
  ];
  for (const w of words) {
    for (const text of [`k: ${w}\n`, `${w}: v\n`, `- ${w}\n`]) {
      const fast = fastLoadYaml(text, resolveConfigScalar);
      if (fast === BAIL) continue;
      assert.deepEqual(fast, full(text), JSON.stringify(text));
    }
  }
});

test('the resolver leaves numbers-to-be and one-letter booleans to the full parser', () => {
  for (const w of ['e3', 'y', 'N', '0755', '1_000', '1e3', '1_0.5', '.inf', '12:30', '+5', '<<', '1234567890123456789']) assert.equal(typeof resolveConfigScalar(w, false), 'symbol', w);
  assert.equal(resolveConfigScalar('Off', false), false);
  assert.equal(resolveConfigScalar('4506', false), 4506);
  assert.equal(resolveConfigScalar('0.5', false), 0.5);
  assert.equal(resolveConfigScalar('web1', false), 'web1');
});

test('errors still come from the full parser, naming the file and line', () => {
  assert.throws(
    () => parseConfigText('a: 1\na: 2\n', '/etc/brine/master'),
    (err: Error) => /cannot parse \/etc\/brine\/master/.test(err.message),
  );
  assert.throws(() => parseConfigText('a: [1\n', '/etc/brine/master'), /cannot parse \/etc\/brine\/master/);
  assert.throws(() => parseConfigText('- a\n- b\n', '/etc/brine/master'), /must hold `option: value` pairs/);
  assert.deepEqual(parseConfigText('# nothing\n', 'x'), {});
});
