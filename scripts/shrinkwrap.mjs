#!/usr/bin/env node
// Writes npm-shrinkwrap.json (a copy of package-lock.json) into a directory, so the tarball
// `npm pack` makes installs exactly the dependency versions the repository was tested with:
// `npm install -g` of a tarball ignores package-lock.json but honours a shrinkwrap inside it.
// Usage: node scripts/shrinkwrap.mjs [dir] (default: the repository root; `prepack` runs it and
// `postpack` removes the file again, so the checkout keeps only package-lock.json).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.resolve(process.argv[2] ?? root);
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
if (lock.name !== pkg.name || lock.version !== pkg.version) {
  process.stderr.write(`package-lock.json (${lock.name}@${lock.version}) does not match package.json (${pkg.name}@${pkg.version}): run npm install first\n`);
  process.exit(1);
}
fs.writeFileSync(path.join(dir, 'npm-shrinkwrap.json'), `${JSON.stringify(lock, null, 2)}\n`);
