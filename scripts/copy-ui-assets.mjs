#!/usr/bin/env node
// Copies the files tsc does not compile into dist: the web view's static files (src/api/ui/static: HTML, CSS, browser JS) beside the
// compiled src/api/ui/index.js, where registerUi reads them; tsc copies only what it compiles.
// package.json `files` ships dist/src/api/ui/static/ in the npm tarball.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const from = path.join(root, 'src', 'api', 'ui', 'static');
const to = path.join(root, 'dist', 'src', 'api', 'ui', 'static');
fs.rmSync(to, { recursive: true, force: true });
fs.cpSync(from, to, { recursive: true });

// The host script of Salt's Python renderers (#!py, #!pyobjects): python3 runs it from beside the
// compiled src/render/python/python-process.js. package.json `files` ships dist/src/**/*.py.
const pyFrom = path.join(root, 'src', 'render', 'python');
const pyTo = path.join(root, 'dist', 'src', 'render', 'python');
fs.mkdirSync(pyTo, { recursive: true });
for (const name of fs.readdirSync(pyFrom).filter((n) => n.endsWith('.py'))) fs.copyFileSync(path.join(pyFrom, name), path.join(pyTo, name));
// brine's stand-in `salt` package for a tree's own Python (salt_shim/salt/**.py), beside the host
fs.rmSync(path.join(pyTo, 'salt_shim'), { recursive: true, force: true });
fs.cpSync(path.join(pyFrom, 'salt_shim'), path.join(pyTo, 'salt_shim'), { recursive: true, filter: (src) => !src.includes('__pycache__') });
