#!/usr/bin/env node
// Runs every compiled test file under dist/test with node's test runner and ends with a plain
// "N passed, N failed" line (", N skipped" added when tests were skipped, e.g. privileged ones
// on a machine without root or iptables). Usage: node scripts/run-tests.mjs [substring-filter ...]
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runTests } from './test-run.mjs';

const root = new URL('../dist/test', import.meta.url).pathname;
const filters = process.argv.slice(2);

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

// only tests whose source still exists (dist/ may hold files from deleted tests)
const repo = new URL('..', import.meta.url).pathname;
const hasSource = (f) => existsSync(join(repo, f.slice(root.length - 'test'.length).replace(/\.js$/, '.ts')));
const files = walk(root)
  .filter(hasSource)
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files found under dist/test (did the build run?)');
  process.exit(1);
}

const result = await runTests(files);
console.log(result.line);
process.exit(result.code);
