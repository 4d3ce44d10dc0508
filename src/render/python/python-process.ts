// One python3 process per Python-rendered SLS file: brine_host.py (beside this file in dist/)
// reads the request, runs the file's code and speaks line-delimited JSON on its stdout; brine
// answers its `call` and `load` requests on stdin. The process leads its own group, so a timeout
// kills whatever the file's code started too; nothing else ends a render early.

import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BrineError, errorMessage } from '../../util/errors.js';
import { signalGroup } from '../../util/process-group.js';

/** What the host script is asked to render. */
export interface PythonRequest {
  /** Salt's built-in Python renderer, or (with `custom`) the name of a tree's own renderer. */
  renderer: string;
  /** The file's text (its shebang line blanked), its name in errors and its path in the tree. */
  text: string;
  source: string;
  path: string;
  sls: string;
  saltenv: string;
  grains: unknown;
  pillar: unknown;
  opts: unknown;
  /** A `template: py` file template: its variables, set on the module as Salt's templates.py does. */
  variables?: Record<string, unknown>;
  /** A file template: run() returns the file's text (anything else becomes Python's str() of it). */
  textResult?: boolean;
  /** A tree's own renderer module (brine_custom.py): its file, the shebang's argline and its input. */
  custom?: { name: string; module: string; argline: string; input: { text: string } | { data: unknown } };
}

/** brine's side of the protocol: execution functions and files of the tree. */
export interface PythonHost {
  call(fun: string, args: unknown[], kwargs: Record<string, unknown>): unknown;
  load(name: string): string | undefined;
}

/** How the host script ended: the high data, or the Python exception that ended the render. */
export type PythonOutcome =
  | { kind: 'done'; data: unknown /** a tree's renderer returned text (a StringIO or str), not data */; text?: boolean }
  | {
      kind: 'error';
      type: string;
      message: string;
      line: number;
      code: string | null;
      traceback: string;
      cause?: unknown;
      /** a tree's renderer: whether its module failed to load ('import') or its render() raised */
      phase?: 'import' | 'render' | null;
      /** a `salt.*` module the file imported that brine's shim package does not have */
      missingModule?: string | null;
      /** the traceback without brine's own frames */
      treeTraceback?: string;
      /** `file:line` of the import that asked for it */
      importer?: string | null;
    };

export interface PythonProcessOptions {
  /** The interpreter: /usr/bin/python3, /usr/local/bin/python3, else python3 on PATH by default. */
  interpreter?: string;
  timeoutMs: number;
}

/** The system's python3 first (a version-manager shim on PATH costs ~300 ms a start), as the grains do. */
export function defaultInterpreter(): string {
  for (const p of ['/usr/bin/python3', '/usr/local/bin/python3']) {
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return 'python3';
}

/** brine_host.py: beside the compiled file, or under src/render/python when a bundle (job worker) runs this code. */
export function hostScript(): string {
  const candidates = ['./brine_host.py', '../render/python/brine_host.py'];
  for (const rel of candidates) {
    const file = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(file)) return file;
  }
  throw new BrineError('RENDER_FAILED', `brine's Python renderer host (brine_host.py) is missing beside ${fileURLToPath(import.meta.url)}: reinstall brine (or run npm run build)`);
}

/** Runs one render; resolves with its outcome, rejects with a coded error when Python could not run it. */
export function runPython(request: PythonRequest, host: PythonHost, opts: PythonProcessOptions): Promise<PythonOutcome> {
  const interpreter = opts.interpreter ?? defaultInterpreter();
  return new Promise((resolve, reject) => {
    const child = spawn(interpreter, ['-I', '-B', hostScript()], { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' } });
    let settled = false;
    let stderr = '';
    let pending = '';
    let callError: unknown;
    const finish = (err: BrineError | undefined, outcome?: PythonOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // the file's code may have started processes of its own: its whole group goes
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      if (err) reject(err);
      else resolve(outcome!);
    };
    const timer = setTimeout(() => {
      finish(
        new BrineError(
          'RENDER_TIMEOUT',
          `${request.source}: the '#!${request.renderer}' renderer's Python code did not finish within ${opts.timeoutMs / 1000} s and was killed: look for a loop or a blocking call in the file (run it with python3 by hand)`,
          { details: { file: request.source, timeoutMs: opts.timeoutMs } },
        ),
      );
    }, opts.timeoutMs);
    child.on('error', (err: NodeJS.ErrnoException) => {
      const missing = err.code === 'ENOENT' || err.code === 'EACCES';
      const message = missing
        ? `${request.source}: the '#!${request.renderer}' renderer runs the file's Python code with python3, and there is no ${interpreter} on this host: install it (apt-get install python3)`
        : `${request.source}: python3 could not be started for the '#!${request.renderer}' renderer: ${err.message}`;
      finish(new BrineError(missing ? 'RENDERER_NEEDS_PYTHON' : 'RENDER_FAILED', message, { cause: err, details: { file: request.source, interpreter } }));
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // the tail is enough to explain a crash of the host itself
      stderr = (stderr + chunk).slice(-4000);
    });
    const reply = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const handle = (line: string) => {
      const msg = JSON.parse(line) as Record<string, unknown>;
      if (msg.op === 'call') {
        try {
          reply({ return: host.call(String(msg.fun), (msg.args as unknown[]) ?? [], (msg.kwargs as Record<string, unknown>) ?? {}) ?? null });
        } catch (err) {
          callError ??= err;
          const code = err instanceof BrineError ? err.code : 'EXEC_FAILED';
          reply({ error: { code, message: errorMessage(err) } });
        }
      } else if (msg.op === 'load') {
        reply({ return: host.load(String(msg.name)) ?? null });
      } else if (msg.op === 'done') {
        finish(undefined, { kind: 'done', data: msg.data, ...(msg.text === true ? { text: true } : {}) });
      } else if (msg.op === 'error') {
        const e = msg as unknown as Omit<Extract<PythonOutcome, { kind: 'error' }>, 'kind'>;
        finish(undefined, {
          kind: 'error',
          type: e.type,
          message: e.message,
          line: e.line,
          code: e.code,
          traceback: e.traceback,
          phase: e.phase ?? null,
          missingModule: e.missingModule ?? null,
          importer: e.importer ?? null,
          treeTraceback: e.treeTraceback ?? e.traceback,
          ...(e.code ? { cause: callError } : {}),
        });
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      let nl = pending.indexOf('\n');
      while (nl >= 0 && !settled) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        try {
          handle(line);
        } catch (err) {
          finish(new BrineError('RENDER_FAILED', `${request.source}: brine's Python renderer host sent a line that is not its protocol (${String(err)})`, { cause: err }));
        }
        nl = pending.indexOf('\n');
      }
    });
    child.on('close', (code, signal) => {
      const why = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const tail = stderr.trim().split('\n').slice(-5).join('\n');
      finish(new BrineError('RENDER_FAILED', `${request.source}: python3 ${why} before the '#!${request.renderer}' render ended${tail ? `:\n${tail}` : ''}`, { details: { file: request.source } }));
    });
    // a host that died before reading (no such script) makes this write fail: 'close' reports it
    child.stdin.on('error', () => undefined);
    child.stdin.write(`${JSON.stringify(request)}\n`);
  });
}
