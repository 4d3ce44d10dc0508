// A flow collection continued on lines indented less than its key: PyYAML loads it (Salt's
// `yaml` filter folds long flow sequences at 80 columns, and trees put `{{ x | yaml }}` after a
// key), the yaml package refused it. brine must load exactly what PyYAML loads.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { yamlDump } from '../../../src/render/jinja/yaml-emitter.js';
import { loadYaml } from '../../../src/render/yaml-load.js';
import { indentFlowContinuations } from '../../../src/render/yaml-flow-indent.js';

function pyyaml(text: string): unknown {
  const r = spawnSync('python3', ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))'], { input: text, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe('flow collections continued below their indentation (PyYAML leniency)', () => {
  const sources = ['salt://acme-dns/files/default/config.cfg.j2', 'salt://acme-dns/files/default/config.cfg.jinja', 'salt://acme-dns/files/config.cfg'];
  const folded = yamlDump(sources, true);

  it('the yaml filter folds a long flow sequence as PyYAML does, and the SLS around it loads as PyYAML loads it', () => {
    assert.ok(folded.includes('\n'), `folded at 80 columns: ${folded}`);
    const sls = `acme-dns-config:\n  file.managed:\n    - name: /etc/acme-dns/config.cfg\n    - source: ${folded}\n    - template: jinja # a comment with [ a bracket\n`;
    const expected = pyyaml(sls);
    assert.deepEqual(loadYaml(sls), expected);
    assert.deepEqual((expected as Record<string, Record<string, unknown[]>>)['acme-dns-config']!['file.managed']![1], { source: sources });
  });

  it('mappings, quotes with brackets and escaped quotes across continuation lines', () => {
    const sls = "a:\n  b:\n    - opts: {x: 'it''s [not] closed',\n  y: \"q \\\" ]\"}\n    - c: [1,\n2, [3,\n 4]]\n";
    assert.deepEqual(loadYaml(sls), pyyaml(sls));
  });

  it("a multi-line quoted scalar from the yaml filter continues below its key, as openssh-formula's banner.sls renders it", () => {
    // `- contents: {{ openssh.banner_string | yaml }}` with a banner ending in a newline
    const banner = yamlDump("Welcome to {{ grains['id'] }}!\n", true);
    assert.equal(banner, "'Welcome to {{ grains[''id''] }}!\n\n  '");
    const sls = `sshd_banner:\n  file.managed:\n    - name: /etc/ssh/banner\n    - contents: ${banner}\n    - mode: 644\n`;
    const expected = pyyaml(sls);
    assert.deepEqual(loadYaml(sls), expected);
    assert.deepEqual((expected as Record<string, Record<string, unknown[]>>).sshd_banner!['file.managed']![1], { contents: "Welcome to {{ grains['id'] }}!\n" });
    const dq = 'a:\n    - b: "one\n  two\\\n  three"\n    - c: 1\n';
    assert.deepEqual(loadYaml(dq), pyyaml(dq));
  });

  it("a block scalar's lines are text: a quote in them opens nothing", () => {
    const sls = "a:\n  - t: |\n      it 'q [\n  - contents: 'W\n\n '\n  - u: 1\n";
    assert.deepEqual(loadYaml(sls), pyyaml(sls));
  });

  it('text that needs no re-indenting is left alone, and a real error is still reported', () => {
    assert.equal(indentFlowContinuations('a: [1, 2]\nb: c\n'), undefined);
    assert.throws(() => loadYaml('a:\n  - [1, 2\nb: ]]\n'), /YAML|flow|Unexpected/i);
  });
});
