// virtualenv.managed and pip.installed with real programs: Debian's virtualenv
// (python3-virtualenv) creates the environment, its pip installs wheels written here (no index,
// no network: --no-index --find-links). Comments and changes are pinned to Salt's
// salt/states/virtualenv_mod.py managed() and salt/states/pip_state.py installed().

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseRequirement } from '../../../src/state/modules/pip-installed.js';
import { pipCommand } from '../../../src/state/modules/pip-cli.js';
import { pipInstalled } from '../../../src/state/modules/pip-installed.js';
import { virtualenvManaged } from '../../../src/state/modules/virtualenv-managed.js';
import { DirFileClient, runState, tempDir } from './file-fixture.js';

let dir: string;
let wheels: string;
let venv: string;

/** Writes a minimal pure-Python wheel (a zip with the dist-info files pip requires). */
function writeWheel(project: string, version: string): void {
  const script = `
import base64, hashlib, sys, zipfile
name, ver, out = sys.argv[1], sys.argv[2], sys.argv[3]
files = {f"{name}/__init__.py": f"VERSION = '{ver}'\\n",
         f"{name}-{ver}.dist-info/METADATA": f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {ver}\\n",
         f"{name}-{ver}.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: brine-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
record = []
for p, t in files.items():
    d = base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b"=").decode()
    record.append(f"{p},sha256={d},{len(t.encode())}")
record.append(f"{name}-{ver}.dist-info/RECORD,,")
files[f"{name}-{ver}.dist-info/RECORD"] = "\\n".join(record) + "\\n"
with zipfile.ZipFile(f"{out}/{name}-{ver}-py3-none-any.whl", "w") as z:
    for p, t in files.items():
        z.writestr(p, t)
`;
  execFileSync('/usr/bin/python3', ['-c', script, project, version, wheels]);
}

before(() => {
  dir = tempDir('brine-pip-');
  wheels = path.join(dir, 'wheels');
  fs.mkdirSync(wheels);
  writeWheel('brinedemo', '1.0');
  writeWheel('brinedemo2', '0.5');
  venv = path.join(dir, 'venv');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('parseRequirement (Salt _check_pkg_version_format)', () => {
  it("splits name and specifiers; refuses a single '='", () => {
    assert.deepEqual(parseRequirement('django >= 1.6, <= 1.7'), {
      prefix: 'django',
      versionSpec: [
        ['>=', '1.6'],
        ['<=', '1.7'],
      ],
    });
    assert.deepEqual(parseRequirement('git+https://example.invalid/x.git#egg=x'), { prefix: '', versionSpec: [] });
    assert.deepEqual(parseRequirement('django=1.6'), { error: "Invalid version specification in package django=1.6. '=' is not supported, use '==' instead." });
  });
});

describe('virtualenv.managed and pip.installed', () => {
  const pipArgs = () => ({ bin_env: venv, no_index: true, find_links: wheels });

  it('virtualenv.managed: test=True, create, then exists', async () => {
    assert.deepEqual(await runState(virtualenvManaged, { name: venv }, { test: true }), { name: venv, result: null, changes: {}, comment: `Virtualenv ${venv} is set to be created` });
    assert.equal(fs.existsSync(venv), false);
    const r = await runState(virtualenvManaged, { name: venv, venv_bin: 'virtualenv' });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, 'Created new virtualenv');
    // Salt records `python -V` from stderr; Python 3 prints it on stdout, so Salt's value is ''.
    assert.deepEqual(r.changes, { new: '' });
    assert.ok(fs.existsSync(path.join(venv, 'bin', 'pip')));
    assert.deepEqual(await runState(virtualenvManaged, { name: venv }), { name: venv, result: true, changes: {}, comment: 'virtualenv exists' });
    assert.deepEqual(await runState(virtualenvManaged, { name: venv }, { test: true }), { name: venv, result: true, changes: {}, comment: `Virtualenv ${venv} is already created` });
  });

  it('pip.installed: test=True, install (changes name==version), then already installed', async () => {
    const t = await runState(pipInstalled, { name: 'brinedemo', ...pipArgs() }, { test: true });
    assert.deepEqual(t, { name: 'brinedemo', result: null, changes: {}, comment: 'Python package brinedemo is set to be installed' });
    const r = await runState(pipInstalled, { name: 'brinedemo', ...pipArgs() });
    assert.deepEqual(r, { name: 'brinedemo', result: true, changes: { 'brinedemo==1.0': 'Installed' }, comment: 'All packages were successfully installed' });
    assert.equal(execFileSync(path.join(venv, 'bin', 'python'), ['-c', 'import brinedemo; print(brinedemo.VERSION)'], { encoding: 'utf8' }).trim(), '1.0');
    const again = await runState(pipInstalled, { name: 'brinedemo == 1.0', ...pipArgs() });
    assert.deepEqual(again, {
      name: 'brinedemo == 1.0',
      result: true,
      changes: {},
      comment: 'Python package brinedemo == 1.0 was already installed\nAll specified packages are already installed',
    });
    assert.equal((await runState(pipInstalled, { name: 'brinedemo', ...pipArgs() }, { test: true })).result, true, 'test=True on an installed package is True');
  });

  it('pip.installed: an unsatisfiable version fails with pip output; pkgs names the state by ";"', async () => {
    const r = await runState(pipInstalled, { name: 'x', pkgs: ['brinedemo>=2'], ...pipArgs() });
    assert.equal(r.name, 'brinedemo>=2');
    assert.equal(r.result, false);
    assert.match(r.comment, /^Failed to install packages: brinedemo>=2\. Error: /);
    assert.match(r.comment, /No matching distribution found for brinedemo>=2/);
    const bad = await runState(pipInstalled, { name: 'brinedemo=1.0', ...pipArgs() });
    assert.deepEqual(bad, { name: 'brinedemo=1.0', result: false, changes: {}, comment: "Invalid version specification in package brinedemo=1.0. '=' is not supported, use '==' instead." });
  });

  it('pip.installed with requirements: test=True says it will be processed; the run reports requirements: True', async () => {
    const req = path.join(dir, 'requirements.txt');
    fs.writeFileSync(req, 'brinedemo2==0.5\n');
    const t = await runState(pipInstalled, { name: 'reqs', requirements: req, ...pipArgs() }, { test: true });
    assert.deepEqual(t, { name: 'reqs', result: null, changes: {}, comment: `Requirements file '${req}' will be processed.` });
    const r = await runState(pipInstalled, { name: 'reqs', requirements: req, ...pipArgs() });
    assert.deepEqual(r, { name: 'reqs', result: true, changes: { requirements: true }, comment: `Successfully processed requirements file ${req}.` });
  });

  it('a salt:// requirements file is fetched through the file client first', async () => {
    const root = path.join(dir, 'root');
    fs.mkdirSync(path.join(root, 'app'), { recursive: true });
    fs.writeFileSync(path.join(root, 'app', 'requirements.txt'), 'brinedemo2==0.5\n');
    const files = new DirFileClient(root, path.join(dir, 'cache'));
    const r = await runState(pipInstalled, { name: 'reqs', requirements: 'salt://app/requirements.txt', ...pipArgs() }, { files });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, 'Successfully processed requirements file salt://app/requirements.txt.');
    assert.equal(files.fetched, 1);
  });

  it('virtualenv.managed with requirements reports the new packages from pip freeze', async () => {
    const env2 = path.join(dir, 'venv2');
    const req = path.join(dir, 'req2.txt');
    fs.writeFileSync(req, `--no-index\n--find-links ${wheels}\nbrinedemo2==0.5\n`);
    const r = await runState(virtualenvManaged, { name: env2, venv_bin: 'virtualenv', requirements: req });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, 'Created new virtualenv');
    assert.deepEqual(r.changes, { new: '', packages: { new: ['brinedemo2==0.5'], old: '' } });
    const again = await runState(virtualenvManaged, { name: env2, requirements: req });
    assert.deepEqual(again, { name: env2, result: true, changes: {}, comment: 'virtualenv exists' });
  });
});

describe("pip's bin_env as Salt's _get_pip_bin reads it (REMnux: bin_env: /usr/bin/python3, issue 22)", () => {
  it("a python program runs as `-m pip`, a pip program as itself, a virtualenv by its python; a missing one is Salt's error", () => {
    const d = tempDir('brine-pipbin-');
    try {
      const py = path.join(d, 'python3.11');
      const pip = path.join(d, 'pip3');
      for (const f of [py, pip]) fs.writeFileSync(f, '#!/bin/sh\n', { mode: 0o755 });
      assert.deepEqual(pipCommand(py), [py, '-m', 'pip']);
      assert.deepEqual(pipCommand(pip), [pip]);
      const env = path.join(d, 'env');
      fs.mkdirSync(path.join(env, 'bin'), { recursive: true });
      assert.deepEqual(pipCommand(env), { error: `Could not find a pip binary in virtualenv ${env}` });
      fs.writeFileSync(path.join(env, 'bin', 'python'), '#!/bin/sh\n', { mode: 0o755 });
      assert.deepEqual(pipCommand(env), [path.join(env, 'bin', 'python'), '-m', 'pip']);
      const gone = path.join(d, 'venv-not-yet', 'bin', 'python3');
      assert.deepEqual(pipCommand(gone), { error: `Access denied to ${gone}, could not find a pip binary` });
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  });

  it("pip.installed with bin_env a real python3 asks that python's pip; a virtualenv not created yet fails as in Salt", async () => {
    const python = execFileSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).trim();
    const t = await runState(pipInstalled, { name: 'pip', bin_env: python }, { test: true });
    assert.equal(t.result, true, t.comment);
    assert.match(t.comment, /^Python package pip was already installed/);
    const gone = path.join(dir, 'not-created', 'bin', 'python3');
    assert.deepEqual(await runState(pipInstalled, { name: 'cffi', bin_env: gone }, { test: true }), {
      name: 'cffi',
      result: false,
      changes: {},
      comment: `Error installing 'cffi': Access denied to ${gone}, could not find a pip binary`,
    });
  });
});
