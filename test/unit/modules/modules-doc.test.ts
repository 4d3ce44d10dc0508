// Keeps docs/modules.md in step with the registry: every function with its exact signature,
// its doc line and at least one `brine run` example.
import * as path from 'node:path';
import { repoRoot } from '../../helpers/cluster.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { formatSignature } from '../../../src/modules/index.js';
import { createMinionRegistry } from '../../../src/state/index.js';

const DOC = path.join(repoRoot(), 'docs', 'modules.md');

describe('docs/modules.md', () => {
  const text = fs.readFileSync(DOC, 'utf8');
  const registry = createMinionRegistry();
  // Sections start at a `#### \`signature\`` heading and run to the next heading.
  const sections = new Map<string, string>();
  for (const part of text.split(/^(?=#{2,4} )/m)) {
    const m = /^#### `([a-z0-9_]+\.[A-Za-z0-9_]+)\((.*)\)`\n/.exec(part);
    if (m) sections.set(m[1]!, part);
  }

  it('documents every registered function with its signature, doc line and an example', () => {
    const problems: string[] = [];
    for (const name of registry.list()) {
      const fn = registry.get(name)!;
      const section = sections.get(name);
      if (!section) {
        problems.push(`${name}: missing; add a '#### \`${formatSignature(fn)}\`' section`);
        continue;
      }
      if (!section.startsWith(`#### \`${formatSignature(fn)}\`\n`)) problems.push(`${name}: signature differs; it is now ${formatSignature(fn)}`);
      if (!section.includes(`\n${fn.doc}\n`)) problems.push(`${name}: doc line differs; it is now: ${fn.doc}`);
      if (!new RegExp(`^brine run '\\*' ${name.replace('.', '\\.')}( |$)`, 'm').test(section)) problems.push(`${name}: no example line starting with brine run '*' ${name}`);
    }
    assert.deepEqual(problems, []);
  });

  it('lists no function the registry does not have', () => {
    const extra = [...sections.keys()].filter((n) => registry.get(n) === undefined);
    assert.deepEqual(extra, []);
  });
});
