// What a render needs from its caller. The renderer never reaches the file server, the module
// registry or the minion itself: everything arrives through this interface.

import type { GpgOptions } from './gpg.js';
import type { StateconfMemory } from './stateconf/transform.js';

export interface RenderEnv {
  /**
   * Where the text came from: `salt://web/init.sls` for a file server file, or a local path.
   * Errors name it with line and column; `tplpath`/`tpldir` derive from it.
   */
  source: string;
  /** The file server environment (`saltenv` in the template). */
  saltenv: string;
  /**
   * Template variables: `grains`, `pillar`, `opts`, `sls`, `slspath`, `tpldir`, `tplpath`,
   * `saltenv` as the caller computed them, plus any extra context (file.managed `context`).
   */
  context: Record<string, unknown>;
  /**
   * `salt['mod.fun'](...)` and `salt.mod.fun(...)`: runs an execution function synchronously and
   * returns its return value; throws (a BrineError) when the function fails.
   */
  callFunction(fun: string, args: unknown[], kwargs: Record<string, unknown>): unknown;
  /**
   * Reads another file for `{% include %}`, `{% import %}`, `{% from ... import %}`,
   * `{% import_yaml %}`, `{% import_json %}`, `{% import_text %}`: `name` is relative to the root
   * of the environment (Salt's rule), e.g. `nginx/map.jinja`. Returns undefined when missing.
   */
  loadFile(name: string): string | undefined;
  /** Where `salt.log.*` calls in the template write (the minion's log); absent = they write nothing. */
  log?: (level: 'debug' | 'info' | 'warning' | 'error' | 'critical', message: string) => void;
  /**
   * The SLS is pillar data rather than states or a top file: its top-level keys may be numbers
   * or booleans. Otherwise (the default) renderSls refuses an ID that YAML reads as a bool,
   * number or null, as Salt's state compiler does.
   */
  pillar?: boolean;
  /**
   * The grains are a minion's claims rendered by the master (threats.md #45): a read of a grain
   * string holding a control character other than tab ends the render with GRAIN_UNSAFE naming
   * `minion` and the grain path; `onRefused` is told the path. Absent: grains are read as given.
   */
  untrustedGrains?: { minion: string; onRefused?: (grain: string) => void };
  /**
   * What the `#!stateconf` renders of one run share (Salt keeps it in module globals): the
   * `stateconf.set` arguments collected so far, so that an including file's `extend` of an
   * included file's `stateconf.set` reaches that file's template. Absent: each render has its own.
   */
  stateconf?: StateconfMemory;
  /**
   * gpg_keydir and gpg_decrypt_must_succeed for a `|gpg` pipeline (pillar only). Absent: a
   * `|gpg` shebang is refused with RENDERER_UNSUPPORTED.
   */
  gpg?: GpgOptions;
  /** The pipeline of a text without a shebang (file_tree's render_default); `jinja|yaml` when absent. */
  renderer?: string;
  /**
   * `#!py` and `#!pyobjects`: the python3 to run (default /usr/bin/python3, /usr/local/bin/python3,
   * else python3 on PATH) and how long its code may run (default 120 s, then RENDER_TIMEOUT).
   */
  python?: { interpreter?: string; timeoutMs?: number };
  /**
   * Directories holding a tree's own Python renderers (`<name>.py`), searched in order for a
   * shebang name brine does not render itself (src/render/python/tree-renderers.ts treeRendererDirs).
   * Absent: only brine's renderers.
   */
  treeRendererDirs?: readonly string[];
}
