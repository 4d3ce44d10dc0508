// Keeps docs/errors.md in sync with the error catalogue (src/util/errors.ts) and the close
// reasons (src/protocol/messages.ts), and checks that every catalogue code is raised somewhere.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ERROR_GROUPS, ERRORS, type ErrorCode } from '../../../src/util/errors.js';
import { CLOSE_REASONS } from '../../../src/protocol/index.js';
import { codeSpan, readDoc, repoRoot, section, sections, tableRows } from './markdown.js';

interface DocRow {
  code: string;
  exit: string;
  meaning: string;
  fix: string;
}

const doc = readDoc('errors.md');
const codesSection = section(doc, 2, 'Error codes');
const closeSection = section(doc, 2, 'Connection close reasons');

function docRows(text: string): DocRow[] {
  return tableRows(text)
    .filter((cells) => codeSpan(cells[0] ?? '') !== undefined)
    .map((cells) => ({ code: codeSpan(cells[0]!)!, exit: cells[1] ?? '', meaning: cells[2] ?? '', fix: cells[3] ?? '' }));
}

function duplicates(items: string[]): string[] {
  return items.filter((x, i) => items.indexOf(x) !== i);
}

describe('docs/errors.md: error codes', () => {
  const rows = docRows(codesSection.body);
  const catalogue = Object.keys(ERRORS) as ErrorCode[];

  it('lists every catalogue code', () => {
    const documented = new Set(rows.map((r) => r.code));
    assert.deepEqual(
      catalogue.filter((c) => !documented.has(c)),
      [],
      'codes missing from docs/errors.md',
    );
  });

  it('lists no code that is not in the catalogue, and none twice', () => {
    assert.deepEqual(
      rows.map((r) => r.code).filter((c) => !Object.hasOwn(ERRORS, c)),
      [],
      'docs/errors.md lists codes that no longer exist',
    );
    assert.deepEqual(duplicates(rows.map((r) => r.code)), []);
  });

  it('gives each code the exit status, meaning and fix of the catalogue', () => {
    for (const row of rows) {
      if (!Object.hasOwn(ERRORS, row.code)) continue;
      const spec = ERRORS[row.code as ErrorCode];
      assert.equal(row.exit, String(spec.exit), `exit status of ${row.code}`);
      assert.equal(row.meaning, spec.meaning, `meaning of ${row.code}`);
      assert.equal(row.fix, spec.fix, `fix of ${row.code}`);
    }
  });

  it('groups the codes as the catalogue does, in the same order', () => {
    const groups = ERROR_GROUPS.map((g) => ({ title: g.title, codes: Object.keys(g.codes) }));
    assert.ok(groups.length >= 2, 'the catalogue has areas');
    assert.deepEqual(
      groups.flatMap((g) => g.codes),
      catalogue,
      'ERRORS merges every area of ERROR_GROUPS, in order, and no code is in two areas',
    );
    const docGroups = sections(codesSection.body, 3).map((s) => ({ title: s.title.toLowerCase(), codes: docRows(s.body).map((r) => r.code) }));
    assert.deepEqual(
      docGroups,
      groups.map((g) => ({ title: g.title.toLowerCase(), codes: g.codes })),
    );
  });
});

describe('docs/errors.md: close reasons', () => {
  const reasons = tableRows(closeSection.body)
    .map((cells) => codeSpan(cells[0] ?? ''))
    .filter((r): r is string => r !== undefined);

  it('describes every close reason, and only those, once each', () => {
    const known = new Set<string>(CLOSE_REASONS);
    assert.deepEqual(
      CLOSE_REASONS.filter((r) => !reasons.includes(r)),
      [],
      'close reasons missing from docs/errors.md',
    );
    assert.deepEqual(
      reasons.filter((r) => !known.has(r)),
      [],
      'docs/errors.md lists close reasons that no longer exist',
    );
    assert.deepEqual(duplicates(reasons), []);
  });

  it('gives each close reason a meaning and when it happens', () => {
    for (const cells of tableRows(closeSection.body)) {
      assert.ok((cells[1] ?? '').length > 10 && (cells[2] ?? '').length > 10, `row ${cells[0]} needs a meaning and a when`);
    }
  });
});

/** Codes defined in the catalogue that nothing raises yet. Listed on purpose; see the test. */
// (AUTH_PENDING was here until brine doctor reported a pending key with its catalogue fix.)
const KNOWN_UNUSED: ReadonlySet<string> = new Set<string>([]);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(p));
    else if (entry.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('error catalogue usage', () => {
  const src = path.join(repoRoot(), 'src');
  const catalogueFiles = [path.join(src, 'util', 'errors.ts'), ...sourceFiles(path.join(src, 'util', 'error-codes'))];
  const corpus = sourceFiles(src)
    .filter((f) => !catalogueFiles.includes(f))
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
  // A quoted code is a raised or returned code; comments rarely quote one, so they are not stripped.
  const used = (code: string) => corpus.includes(`'${code}'`) || corpus.includes(`"${code}"`);

  it('finds the source files it searches', () => {
    assert.ok(corpus.includes("new BrineError('"), 'src/ was read');
  });

  it('every catalogue code is raised somewhere in src/ outside the catalogue', () => {
    const unused = Object.keys(ERRORS).filter((c) => !used(c) && !KNOWN_UNUSED.has(c));
    assert.deepEqual(unused, [], 'catalogue codes nothing raises: use them, or add them to KNOWN_UNUSED with a reason');
  });

  it('KNOWN_UNUSED holds only codes that exist and are still unused', () => {
    for (const code of KNOWN_UNUSED) {
      assert.ok(Object.hasOwn(ERRORS, code), `${code} is not in the catalogue`);
      assert.equal(used(code), false, `${code} is used now; remove it from KNOWN_UNUSED`);
    }
  });
});
