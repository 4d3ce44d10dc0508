// The typed option views (MasterOptions, MinionOptions, CommonOptions) come from the rows of
// schema.ts. The expectType lines are checked by the compiler: with hand-written views they fail
// the build (refuse_cloned_id was `unknown`, read as `opts['refuse_cloned_id'] === true`). The
// run-time test checks that what the loader hands out has the type the views claim.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SaltLogLevel } from '../../../src/util/logger.js';
import { OPTIONS, asMasterOptions, asMinionOptions, loadConfig, type CommonOptions, type MasterOptions, type MinionOptions, type OptionType } from '../../../src/config/index.js';
import { expectType, type Equal } from '../../helpers/type-equal.js';
import { configDir } from './helpers.js';

test('option views are typed from the declared type of each row', () => {
  // bool, int, number, string (each as declared)
  expectType<Equal<MinionOptions['refuse_cloned_id'], boolean>>();
  expectType<Equal<MasterOptions['auto_accept'], boolean>>();
  expectType<Equal<MinionOptions['master_port'], number>>();
  expectType<Equal<MasterOptions['auth_rate'], number>>();
  expectType<Equal<CommonOptions['pki_dir'], string>>();
  // enum: the declared values, not just string
  expectType<Equal<MinionOptions['master_type'], 'str' | 'failover' | 'disable'>>();
  expectType<Equal<CommonOptions['log_level'], SaltLogLevel>>();
  expectType<Equal<CommonOptions['log_fmt'], 'text' | 'json'>>();
  // the mixed types, lists and maps
  expectType<Equal<MinionOptions['master'], string | string[]>>();
  expectType<Equal<MinionOptions['minion_id_remove_domain'], string | boolean>>();
  expectType<Equal<MinionOptions['module_dirs'], string[]>>();
  expectType<Equal<MinionOptions['grains'], Record<string, unknown>>>();
  expectType<Equal<MasterOptions['nodegroups'], Record<string, unknown>>>();
  // nullable: Salt's `None or int`
  expectType<Equal<MinionOptions['retry_dns_count'], number | null>>();
  assert.ok(true);
});

test('options without a default are optional; options of the other role are not typed', () => {
  expectType<Equal<MasterOptions['autosign_file'], string | undefined>>();
  expectType<Equal<MinionOptions['append_domain'], string | undefined>>();
  // biome-ignore lint/complexity/noBannedTypes: `{} extends Pick<...>` tests that the key is optional
  expectType<Equal<{} extends Pick<MasterOptions, 'autosign_file'> ? true : false, true>>();
  // biome-ignore lint/complexity/noBannedTypes: as above
  expectType<Equal<{} extends Pick<MasterOptions, 'ret_port'> ? true : false, false>>();
  // A master-only option on a minion is only an unknown key (as module settings are).
  expectType<Equal<MinionOptions['ret_port'], unknown>>();
  expectType<Equal<MasterOptions['refuse_cloned_id'], unknown>>();
  expectType<Equal<CommonOptions['master_type'], unknown>>();
  // Module settings such as `mysql.host` stay readable, untyped.
  expectType<Equal<MinionOptions['mysql.host'], unknown>>();
  assert.ok(true);
});

/** The run-time side of the view types: what a value of each declared type must look like. */
const LOOKS_LIKE: Record<OptionType, (v: unknown, values?: readonly string[]) => boolean> = {
  string: (v) => typeof v === 'string',
  int: (v) => Number.isSafeInteger(v),
  number: (v) => typeof v === 'number',
  bool: (v) => typeof v === 'boolean',
  list: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
  string_or_list: (v) => typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string')),
  string_or_bool: (v) => typeof v === 'string' || typeof v === 'boolean',
  map: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  enum: (v, values) => typeof v === 'string' && (values ?? []).includes(v),
};

test('every loaded value has the type its view declares (defaults, and values converted by the loader)', (t) => {
  const dir = configDir(t, {
    // converted on load: a digit string for an int, a YAML number for id, upper-case enum
    minion: 'master_port: "4510"\nid: 1234\nlog_level: INFO\nmodule_dirs: [/srv/mods]\nretry_dns_count: 3\nappend_domain: example.org\n',
    master: 'autosign_file: /etc/brine/autosign.conf\nlog_fmt: JSON\n',
  });
  const minion: MinionOptions = asMinionOptions(loadConfig('minion', { configDir: dir, env: {} }));
  const master: MasterOptions = asMasterOptions(loadConfig('master', { configDir: dir, env: {} }));
  assert.equal(minion.master_port, 4510);
  assert.equal(minion.id, '1234');
  assert.equal(minion.log_level, 'info');
  assert.equal(master.log_fmt, 'json');
  for (const [role, opts] of [
    ['minion', minion],
    ['master', master],
  ] as const) {
    for (const spec of OPTIONS) {
      if (!spec.roles.includes(role)) continue;
      const value = opts[spec.name];
      if (value === undefined && spec.default === undefined) continue;
      if (value === null && spec.nullable) continue;
      assert.ok(LOOKS_LIKE[spec.type](value, spec.values), `${role} option ${spec.name} (${spec.type}) holds ${JSON.stringify(value)}`);
    }
  }
});
