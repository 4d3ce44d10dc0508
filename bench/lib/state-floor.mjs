#!/usr/bin/env node
// The raw floor of bench:states: the same files, directories and guarded commands as the state
// tree, done by a plain script with no state system (nunjucks renders the same template).
// First run writes; a later run only reads, compares and runs the `unless` checks.
// usage: node state-floor.mjs <dest> <total> <minion-id>

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import nunjucks from 'nunjucks';
import { shape, TEMPLATE } from './state-tree.mjs';

const [dest, totalText, id] = process.argv.slice(2);
const { files, dirs, cmds } = shape(Number(totalText));
const env = new nunjucks.Environment(null, { autoescape: false });
const template = nunjucks.compile(TEMPLATE, env);

const sh = (command) =>
  new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: 'ignore' });
    child.on('exit', (code) => resolve(code));
  });

let changed = 0;
for (let i = 0; i < files; i++) {
  const file = path.join(dest, 'files', `f${i}.conf`);
  const text = template.render({ name: `f${i}`, index: i, grains: { id } });
  let old;
  try {
    old = fs.readFileSync(file, 'utf8');
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  }
  if (old !== text) {
    fs.writeFileSync(file, text);
    changed++;
  }
}
for (let i = 0; i < dirs; i++) {
  const dir = path.join(dest, 'dirs', `d${i}`);
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true });
    changed++;
  }
}
fs.mkdirSync(path.join(dest, 'markers'), { recursive: true });
for (let i = 0; i < cmds; i++) {
  const marker = path.join(dest, 'markers', `m${i}`);
  if ((await sh(`test -e ${marker}`)) !== 0) {
    await sh(`touch ${marker}`);
    changed++;
  }
}
process.stdout.write(`${JSON.stringify({ changed })}\n`);
