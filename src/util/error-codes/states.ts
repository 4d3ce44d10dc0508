// Error codes of one area (states, templates and the file server); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const STATE_ERRORS = {
  RENDER_FAILED: spec(
    'An SLS file or template could not be rendered: a YAML or Jinja syntax error, or an error raised while rendering.',
    'Fix the file at the line and column the message gives (the line is shown).',
    1,
  ),
  RENDERER_UNSUPPORTED: spec(
    'A shebang line names a renderer brine does not have.',
    'Use no shebang (Jinja, then YAML), the explicit Jinja-then-YAML shebang, or `#!yaml` (docs/templates.md lists them); the message names the file.',
    1,
  ),
  RENDERER_NEEDS_PYTHON: spec(
    "An SLS file uses one of Salt's Python renderers (`#!py`, `#!pyobjects`, `#!pydsl`), which run the file's Python code with python3, and the host (the minion, or the master for pillar) has no python3.",
    'Install python3 on that host (`apt-get install python3`); the message names the file and the interpreter looked for, and only that SLS fails.',
    1,
  ),
  RENDER_TIMEOUT: spec(
    "The Python code of a `#!py`, `#!pyobjects` or `#!pydsl` SLS file ran longer than brine's render limit (120 s) and its process group was killed.",
    'Look for a loop or a blocking call in the file the message names (run its code with python3 by hand); nothing of that render was used.',
    1,
  ),
  RENDERER_MODULE_FAILED: spec(
    "A tree's own Python renderer (`_renderers/<name>.py` synced by saltutil.sync_renderers, `<extension_modules>/renderers/` or a `render_dirs` directory), named by an SLS file's shebang, failed to load or raised while rendering that file.",
    'Fix the renderer module or the SLS file: the message names both and ends with the last lines of the Python traceback; only that SLS failed.',
    1,
  ),
  RENDER_SALT_MODULE_MISSING: spec(
    "A tree's Python code (its own renderer, or a `#!py`/`#!pyobjects` file or a file it imports) imports a `salt.*` module that brine's stand-in Salt package does not provide.",
    "Import only what docs/templates.md lists for brine's Salt shim (salt.utils.pyobjects, salt.fileclient, salt.utils.dictupdate, salt.utils.files, salt.exceptions, salt.utils.yaml/json/odict, salt.loader), or call the function through `__salt__`; the message names the module and the importing file, and only that SLS failed.",
    1,
  ),
  TEMPLATE_UNSUPPORTED: spec(
    "A template uses a construct brine's Jinja engine cannot render exactly as Python Jinja2 does; it is refused at compile time rather than rendered differently.",
    'Rewrite the construct at the file and line given (docs/templates.md lists the differences and the usual rewrite).',
    1,
  ),
  STATE_COMPILE_FAILED: spec(
    'The states could not be compiled: a malformed declaration, a requisite naming a missing state, a requisite cycle, a duplicate ID or an argument of the wrong type. No state ran. (A state function that does not exist fails its own state at run time, and an argument a function does not take is ignored with a warning, as in Salt.)',
    'Fix the SLS files named in the message; `brine call state.show_lowstate` shows the compiled states.',
    1,
  ),
  STATE_RUN_IN_PROGRESS: spec(
    'Another state run is already in progress on this minion.',
    'Wait for the job named in the message (`brine run <minion> saltutil.find_job <jid>`), or pass queue=True to wait for it.',
    1,
  ),
  FILE_NOT_FOUND: spec(
    'A salt:// path is not in any file root of the environment.',
    'Check the path and saltenv with `brine call cp.list_master saltenv=<env>`; the first root that has the file wins.',
    1,
  ),
  URL_FETCH_FAILED: spec(
    'A remote file (an http:// or https:// source, source_hash file or key_url) could not be downloaded: the host did not answer, refused the TLS certificate, or answered with an HTTP error.',
    'Check the URL in a browser or with curl from the minion; for a private CA set ca_bundle in the minion configuration to its PEM file. Nothing was written.',
    1,
  ),
  PATH_REFUSED: spec(
    'A file server path or environment name is not allowed: it leaves the file root (.., an absolute path, a symlink pointing outside), or holds a NUL or an encoded separator.',
    'Use a relative salt:// path inside file_roots; nothing was read.',
    1,
  ),
  PILLAR_DENIED: spec(
    "A minion asked the master for a pillar that is not its own: another minion's ID in a pillar request, or a mine.get that selects minions by their pillar (which would tell it about their pillar).",
    "Nothing was sent: a minion only ever gets its own pillar. Find out why that minion asks (the master log names it); target mine.get by ID, grains or a nodegroup, or set mine_get_pillar_targets: True on the master if every minion may know every minion's pillar.",
    1,
  ),
  GRAIN_UNSAFE: spec(
    "A template rendered on the master (the pillar top file or a pillar SLS) read a minion's grain whose text holds a control character (a newline, carriage return, NUL...; tab is allowed), which could add keys or list items to the rendered YAML; that render was refused and the minion keeps its last good pillar.",
    'Fix the grain on the minion the message names (its grains: configuration, grains file or custom grain module; a grain may not hold line breaks if a master-side template reads it), then run saltutil.refresh_grains and saltutil.refresh_pillar there. Multi-line data belongs in pillar, not in grains.',
    1,
  ),
  PILLAR_RENDER_FAILED: spec(
    "This minion's latest pillar render failed (a YAML or Jinja error, a missing SLS, an SLS that is not a mapping, a PGP block that could not be decrypted, a failed ext_pillar), so a state run was refused, as in Salt; the minion keeps its last good pillar.",
    'Fix the pillar file and line the message names (`brine run <minion> pillar.items` shows them under _errors, `brine doctor master` lists them), then run `saltutil.refresh_pillar`; force=True runs the states on the last good pillar instead.',
    1,
  ),
  PILLARENV_UNKNOWN: spec(
    "A call asked for its pillar from a pillar environment (pillarenv=, or saltenv= with pillarenv_from_saltenv) that the master's pillar_roots does not have, or whose name is not an environment name; nothing was rendered and nothing ran.",
    "Use one of the environments the message lists (the master's pillar_roots keys), or add the environment to pillar_roots on the master and restart it.",
    1,
  ),
  GPG_DECRYPT_FAILED: spec(
    'A PGP message block in a `#!yaml|gpg` (or `#!jinja|yaml|gpg`) pillar file could not be decrypted with the keys of gpg_keydir (no secret key for the key ID named, a damaged block, a key with a passphrase, or no gpg program), and gpg_decrypt_must_succeed is on; the minion keeps its last good pillar.',
    'Import the secret key of the key ID the message names into gpg_keydir (`gpg --homedir <gpg_keydir> --import key.asc`, without a passphrase), or encrypt the value again to a key it holds (`gpg --armor --encrypt -r <key>`); then run saltutil.refresh_pillar. The message names the file and the pillar key, never the data.',
    1,
  ),
  EXT_PILLAR_FAILED: spec(
    'An ext_pillar could not give its data for a minion: a cmd_json/cmd_yaml command that exited non-zero, timed out or printed something that is not a JSON/YAML mapping, a file_tree root_dir that is missing or unreadable, or a git_pillar remote never fetched, a branch gone, its root missing or one of its SLS failing to render. The pillar render failed and the minion keeps its last good pillar.',
    "Run the command the message names by hand on the master (as the master's user, with the minion ID for %s) and fix it, or fix the file_tree directory; then run saltutil.refresh_pillar. The output itself is never quoted (it may hold secrets).",
    1,
  ),
  FILESERVER_UNAVAILABLE: spec(
    'The minion needs files from the master (file_client: remote) but has no connection to one.',
    "Start the minion daemon and check `brine doctor`, or set `file_client: local` to use the minion's own file_roots.",
    1,
  ),
  MINION_NOT_RUNNING: spec(
    '`brine call` without --local runs through the minion daemon on this host (salt-call against the master), and no daemon answers on `<sock_dir>/minion.sock`.',
    'Start the minion (`brine minion -c <dir>` or its service) with the same configuration, or pass --local (or set `file_client: local`) to run the function without a master.',
    1,
  ),
  MINION_NO_MASTER: spec(
    "`brine call` without --local needs the master's files and pillar, and the running minion is not connected to any of its masters (the message names each and why); the call fails at once instead of waiting.",
    'Check that the master named runs and is reachable (`brine doctor minion` on this host), wait for the minion to sign in again, or pass --local to run without a master.',
    1,
  ),

  GITFS_REMOTE_UNREACHABLE: spec(
    'A gitfs remote could not be fetched (unreachable host, refused SSH key or HTTPS credentials, unknown host key, missing repository); the master keeps serving the last good checkout of that remote and retries on the next gitfs_update_interval.',
    "Check the URL and credentials the message names (gitfs_privkey/gitfs_pubkey, gitfs_user/gitfs_password, the host key in the master user's known_hosts or gitfs_ssh_known_hosts), fix them, then run `brine fileserver update` and `brine doctor master`.",
    1,
  ),
  GITFS_CONFIG: spec(
    'A gitfs option or gitfs_remotes entry is malformed (an unknown per-remote parameter, a remote that is neither a URL nor a one-key mapping, a password over plain http without insecure_auth, two remotes with the same name); the master does not start.',
    'Fix the entry the message names (docs/fileserver.md has an example of each option) and restart the master.',
    78,
  ),
  GIT_PILLAR_CONFIG: spec(
    'A git ext_pillar entry or a git_pillar_* option is malformed (a remote that is not `<branch> <URL>` or a one-key mapping of it to its parameters, an unknown per-remote parameter, `base` on a remote whose branch is not __env__, a password over plain http without insecure_auth, two remotes with the same name); the master does not start.',
    'Fix the entry the message names (docs/pillar.md, "git_pillar", has an example of each option) and restart the master.',
    78,
  ),
  GIT_PILLAR_REMOTE_UNREACHABLE: spec(
    "A git_pillar remote could not be fetched (unreachable host, refused SSH key or HTTPS credentials, unknown host key, missing repository); the master keeps rendering pillar from that remote's last good checkout and retries on the next git_pillar_update_interval. A remote never fetched makes the pillar render fail (EXT_PILLAR_FAILED).",
    "Check the URL and credentials the message names (git_pillar_privkey/git_pillar_pubkey, git_pillar_user/git_pillar_password, the host key in the master user's known_hosts or git_pillar_ssh_known_hosts), fix them, then run `brine git-pillar update` and `brine doctor master`.",
    1,
  ),
} as const satisfies Record<string, ErrorSpec>;
