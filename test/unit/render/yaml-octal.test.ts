// `mode: 0755` in an SLS (issue 22, packages-formula archives.sls): Salt's SLS/pillar/import_yaml
// loader (SaltYamlSafeLoader.construct_scalar) strips the leading zeros of an int, so 0755 is 755
// and file states read it as the octal digits "755"; salt.serializers.yaml (slsutil.deserialize,
// file.serialize merging) is plain PyYAML, where 0755 is 493. Both are checked against real PyYAML
// (Debian python3-yaml) with Salt's override restated in test/helpers/jinja2-harness.py.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadYaml } from '../../../src/render/yaml-load.js';
import { modeArg } from '../../../src/state/modules/file-perms.js';

const HARNESS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../test/helpers');

const SCALARS = ['0755', '0644', '00', '0', '000', '0_755', '00_7', '-0755', '+0755', '0x1f', '0b101', '0o755', '0789', '755', "'0755'", '"0644"', '0755.5', '01:30'];

function python(rule: 'salt' | 'pyyaml', texts: string[]): unknown[] {
  const load =
    rule === 'salt'
      ? `sys.path.insert(0, ${JSON.stringify(HARNESS_DIR)}); import importlib.util as u; spec = u.spec_from_file_location('h', ${JSON.stringify(path.join(HARNESS_DIR, 'jinja2-harness.py'))}); h = u.module_from_spec(spec); spec.loader.exec_module(h); load = h.yaml_load`
      : 'load = yaml.safe_load';
  const code = `import json, sys, yaml\n${load}\nprint(json.dumps([load(t) for t in json.load(sys.stdin)]))`;
  const r = spawnSync('python3', ['-c', code], { input: JSON.stringify(texts), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as unknown[];
}

describe('leading-zero ints as Salt loads them (issue 22)', () => {
  test("SLS, pillar and import_yaml: Salt's loader strips the zeros (0755 is 755), as real PyYAML with Salt's construct_scalar does", () => {
    const texts = SCALARS.map((s) => `v: ${s}\n`);
    const want = python('salt', texts);
    // both the fast path (plain block YAML) and the full parser (a flow mapping)
    assert.deepEqual(
      texts.map((t) => loadYaml(t)),
      want,
    );
    assert.deepEqual(
      SCALARS.map((s) => loadYaml(`{v: ${s}}`)),
      want,
    );
    assert.deepEqual(loadYaml('mode: 0755\n'), { mode: 755 });
  });

  test('the yaml serializer (salt.serializers.yaml) is plain PyYAML: 0755 is 493', () => {
    const texts = SCALARS.map((s) => `v: ${s}\n`);
    const want = python('pyyaml', texts);
    assert.deepEqual(
      texts.map((t) => loadYaml(t, undefined, { octal: 'pyyaml' })),
      want,
    );
    assert.deepEqual(loadYaml('{v: 0755}', undefined, { octal: 'pyyaml' }), { v: 493 });
  });

  test('a file state reads the loaded 755 as the mode 0o755 (packages-formula failed with "Invalid mode 493")', () => {
    const loaded = loadYaml('mode: 0755\n') as { mode: number };
    assert.deepEqual(modeArg(loaded.mode), { mode: 0o755 });
    assert.deepEqual(modeArg((loadYaml('mode: 0640\n') as { mode: number }).mode), { mode: 0o640 });
  });
});
