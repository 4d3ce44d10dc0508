// pkgrepo.managed and pkgrepo.absent: an apt sources line (name: 'deb http://... suite main')
// or a dnf .repo section (name: the repository id, with baseurl, gpgcheck, enabled ...), through
// pkg.get_repo/mod_repo/del_repo; the package index is refreshed after a change (refresh: True).

import { aptRequest, dnfRequest, formatSourceLine } from '../../modules/index.js';
import { defineState, type StateFunction } from '../types.js';
import { callFn, stateResult } from './state-result.js';
import { errorMessage } from '../../util/errors.js';

// An apt repository is named by its sources line, a dnf one by its id; the name tells which, and
// pkg.mod_repo refuses the wrong kind for the host with a message saying so.
const isApt = (name: string): boolean => /^(#\s*)?deb(-src)?\s/.test(name.trim());

/** The attributes that would change, {key: {old, new}}, comparing the wanted repository with the configured one. */
function diff(want: Record<string, unknown>, have: Record<string, unknown>): Record<string, { old: unknown; new: unknown }> {
  const out: Record<string, { old: unknown; new: unknown }> = {};
  for (const [k, v] of Object.entries(want)) {
    if (JSON.stringify(v) !== JSON.stringify(have[k] ?? (Array.isArray(v) ? [] : ''))) out[k] = { old: have[k] ?? '', new: v };
  }
  return out;
}

/** Salt's pkgrepo.managed refusals of key arguments that cannot go together (its comments, word for word). */
function keyArgsProblem(kw: Record<string, unknown>): string | undefined {
  const has = (k: string) => kw[k] !== undefined && kw[k] !== null;
  if (has('key_url') && (has('keyid') || has('keyserver'))) return 'You may not use both "keyid"/"keyserver" and "key_url" argument.';
  if (has('key_text') && (has('keyid') || has('keyserver'))) return 'You may not use both "keyid"/"keyserver" and "key_text" argument.';
  if (has('key_text') && has('key_url')) return 'You may not use both "key_url" and "key_text" argument.';
  // Salt's own (inverted) wording for allow_insecure_key: False with an http:// key_url
  if (
    kw.allow_insecure_key === false &&
    String(kw.key_url ?? '')
      .trim()
      .startsWith('http:')
  )
    return "Cannot have 'key_url' using http with 'allow_insecure_key' set to True";
  return undefined;
}

const WOULD = 'This may cause pkg states to behave differently than stated if this action is repeated without test=True, due to the differences in the configured repositories.';

const managed = defineState({
  name: 'pkgrepo.managed',
  doc: 'Make sure a package repository is configured (apt sources line or dnf .repo section).',
  params: [
    { name: 'name', type: 'string', required: true, doc: "apt: the sources line 'deb [opts] uri suite comps'; dnf: the repository id" },
    { name: 'file', type: 'string', doc: 'apt: /etc/apt/sources.list.d/<name>.list (default /etc/apt/sources.list); dnf: the .repo file' },
    { name: 'refresh', type: 'bool', default: true, doc: 'update the package index after a change' },
    { name: 'humanname', type: 'string', doc: 'dnf: the name= shown for the repository' },
    { name: 'comps', type: 'any', doc: 'apt: components (list or comma-separated), overriding the line' },
    { name: 'architectures', type: 'any', doc: 'apt: arch= option (list or comma-separated)' },
    { name: 'signedby', type: 'string', doc: 'apt: signed-by= key file' },
    { name: 'disabled', type: 'bool', doc: 'apt: write the line commented out' },
    { name: 'enabled', type: 'bool', doc: 'dnf: enabled=1/0; apt: the opposite of disabled' },
    { name: 'baseurl', type: 'string', doc: 'dnf: the repository URL' },
    { name: 'mirrorlist', type: 'string', doc: 'dnf: a mirror list URL' },
    { name: 'gpgcheck', type: 'bool', doc: 'dnf: check package signatures' },
    { name: 'gpgkey', type: 'string', doc: 'dnf: the signing key URL' },
    { name: 'key_url', type: 'string', doc: "apt: the repository's signing key (salt://, http(s)://, file:// or a path), added when the repository is configured" },
    { name: 'key_text', type: 'string', doc: 'apt: the signing key itself (ASCII-armored)' },
    { name: 'keyid', type: 'any', doc: 'apt: key ID(s) to receive from keyserver' },
    { name: 'keyserver', type: 'string', doc: 'apt: the keyserver for keyid (e.g. hkps://keyserver.ubuntu.com)' },
    { name: 'aptkey', type: 'bool', default: true, doc: "apt: add the key with apt-key; False (or no apt-key on PATH) writes it to the line's signed-by keyring instead" },
    { name: 'allow_insecure_key', type: 'bool', default: true, doc: 'apt: False refuses an http:// key_url' },
    { name: 'clean_file', type: 'bool', default: false, doc: 'apt: empty file before writing the repository into it' },
  ],
  kwargs: true,
  example:
    'nginx-repo:\n  pkgrepo.managed:\n    - name: deb [signed-by=/etc/apt/keyrings/nginx.gpg] http://nginx.org/packages/debian bookworm nginx\n    - file: /etc/apt/sources.list.d/nginx.list\n\nepel:\n  pkgrepo.managed:\n    - humanname: Extra Packages for Enterprise Linux\n    - baseurl: https://dl.fedoraproject.org/pub/epel/9/Everything/x86_64/\n    - gpgcheck: True\n    - gpgkey: https://dl.fedoraproject.org/pub/epel/RPM-GPG-KEY-EPEL-9',
  run: async (ctx, a) => {
    const n = a.named;
    const { name, refresh, file, ...rest } = n;
    const kw: Record<string, unknown> = { ...a.extra, ...rest };
    const problem = keyArgsProblem(kw);
    if (problem) return stateResult(name, false, problem);
    const apt = isApt(name);
    let want: Record<string, unknown>;
    try {
      if (apt) {
        const r = aptRequest('pkgrepo.managed', name, kw);
        want = { line: formatSourceLine(r), comps: r.comps, architectures: r.architectures, signedby: r.signedby, disabled: r.disabled };
      } else {
        want = dnfRequest('pkgrepo.managed', kw);
      }
    } catch (err) {
      return stateResult(name, false, errorMessage(err));
    }
    const pre = await callFn<Record<string, unknown>>(ctx, 'pkg.get_repo', [name]);
    if (!pre.ok) return stateResult(name, false, pre.message);
    const exists = Object.keys(pre.value).length > 0;
    // apt: the line's options are attributes; compare them, not the raw line (comments may differ).
    const { line: _line, ...attrs } = want;
    const changes = exists ? diff(apt ? attrs : want, pre.value) : { repo: name };
    if (exists && Object.keys(changes).length === 0) return stateResult(name, true, `Package repo '${name}' already configured`);
    if (ctx.test) return stateResult(name, null, `Package repo '${name}' would be configured. ${WOULD}`, changes);
    const mod = await callFn(ctx, 'pkg.mod_repo', [name], { ...kw, saltenv: ctx.saltenv, ...(file !== undefined ? { file } : {}) });
    if (!mod.ok) return stateResult(name, false, `Failed to configure repo '${name}': ${mod.message}`);
    const comment = [`Configured package repo '${name}'`];
    if (refresh) {
      const r = await callFn(ctx, 'pkg.refresh_db');
      if (!r.ok) return stateResult(name, false, `${comment[0]}, but refreshing the package index failed: ${r.message}`, changes);
    }
    return stateResult(name, true, comment.join(''), changes);
  },
});

const absent = defineState({
  name: 'pkgrepo.absent',
  // Salt's pkgrepo.absent takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a package repository is not configured.',
  params: [{ name: 'name', type: 'string', required: true, doc: 'apt: the sources line; dnf: the repository id' }],
  example: 'old-repo:\n  pkgrepo.absent:\n    - name: deb http://archive.example.com/debian bookworm main',
  run: async (ctx, a) => {
    const name = a.named.name;
    const pre = await callFn<Record<string, unknown>>(ctx, 'pkg.get_repo', [name]);
    if (!pre.ok) return stateResult(name, false, pre.message);
    if (Object.keys(pre.value).length === 0) return stateResult(name, true, `Package repo ${name} is absent`);
    if (ctx.test) return stateResult(name, null, `Package repo '${name}' will be removed. ${WOULD}`, { repo: name });
    const del = await callFn(ctx, 'pkg.del_repo', [name]);
    if (!del.ok) return stateResult(name, false, `Failed to remove repo ${name}: ${del.message}`);
    return stateResult(name, true, `Removed repo ${name}`, { repo: name });
  },
});

export const pkgrepoStates: readonly StateFunction[] = [managed, absent];
