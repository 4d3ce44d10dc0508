#!/usr/bin/env node
// Copies the web view's static files (src/api/ui/static: HTML, CSS, browser JS) beside the
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
