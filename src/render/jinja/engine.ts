// The Jinja engine: one reusable nunjucks Environment whose templates are compiled by
// BrineParser/BrineCompiler (cached by name and text), rendered synchronously with Salt's
// variables. Includes and imports go through the render's own loadFile; errors come out as
// RENDER_FAILED / TEMPLATE_UNSUPPORTED naming the file, line and column and showing the line.

import { BrineError, errorMessage } from '../../util/errors.js';
import type { RenderEnv } from '../types.js';
import { guardGrains } from '../grain-guard.js';
import { loadYaml, YamlLoadError } from '../yaml-load.js';
import { BrineCompiler } from './compiler.js';
import { type Any, nunjucks, transformer, Unsupported } from './nunjucks-internals.js';
import { parseTemplate } from './parser.js';
import { forgetUndefined, isSafeString, mkFloat, PyError, setStrictUndefined } from './py-values.js';
import { createRuntime, FILTER_NAMES, jinjaGlobals, type RenderHooks, TEST_NAMES } from './runtime.js';
import { saltProxy } from './salt-layer.js';
import { EXTENSIONS } from './tags.js';
import { unclosedBlock } from './unclosed-block.js';
import { recordKeyOrder } from './digit-key-order.js';
import { type LoaderState, newLoaderState, rememberLoaded, resolveTemplateName } from './template-names.js';

/** Jinja2 drops one trailing newline of every template and reads \r\n as \n (Salt adds the newline back for the top one). */
export function normaliseSource(text: string): string {
  const t = text.replace(/\r\n?/g, '\n');
  return t.endsWith('\n') ? t.slice(0, -1) : t;
}

function lineOf(text: string | undefined, line: number): string {
  return text?.split('\n')[line - 1] ?? '';
}

/** `file:line:col: message` plus the offending line, as every render error reads. */
const CLOSERS: Record<string, string> = { '{{': '}}', '{%': '%}', '{#': '#}' };

/** The first `{{`, `{%` or `{#` with no closer after it (1-based line and column). */
export function unclosedTag(text: string): { opener: string; closer: string; line: number; col: number } | undefined {
  const re = /\{[{%#]/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const opener = m[0];
    const closer = CLOSERS[opener]!;
    const end = text.indexOf(closer, m.index + 2);
    if (end === -1) {
      const before = text.slice(0, m.index);
      const line = before.split('\n').length;
      return { opener, closer, line, col: m.index - before.lastIndexOf('\n') };
    }
    re.lastIndex = end + 2;
  }
  return undefined;
}

export function locate(
  code: 'RENDER_FAILED' | 'TEMPLATE_UNSUPPORTED' | 'GRAIN_UNSAFE',
  file: string,
  line: number,
  col: number,
  message: string,
  text: string | undefined,
  label = '',
  cause?: unknown,
): BrineError {
  const shown = lineOf(text, line);
  const where = col > 0 ? `${file}:${line}:${col}` : `${file}:${line}`;
  const body = `${where}: ${message}\n  ${label}${line} | ${shown}`;
  const known = cause instanceof BrineError ? cause.details : {};
  return new BrineError(code, body, { cause, details: { ...known, file, line, col } });
}

interface Render {
  /** A compile error of an included/imported file: nunjucks rewraps it, this keeps it whole. */
  compileError?: BrineError;
  /** The first error a salt function (or other callable) raised. */
  callError?: unknown;
  /** The first GRAIN_UNSAFE read: nunjucks rewraps errors of plain reads as text, this keeps it whole. */
  grainError?: BrineError;
  env: RenderEnv;
  globals: Record<string, unknown>;
  sources: Map<string, string>;
  /** Salt's loader state: the directory `./x` and `../x` resolve against, and the names already loaded. */
  loader: LoaderState;
}

const MAX_CACHE = 2000;

export class JinjaEngine {
  private readonly env: Any;
  private readonly templates = new Map<string, Any>();
  private readonly stack: Render[] = [];

  constructor() {
    const loader = { getSource: (name: string) => this.getSource(name) };
    this.env = new nunjucks.Environment([loader as Any], { autoescape: false, trimBlocks: false, lstripBlocks: false, throwOnUndefined: false });
    this.env.globals = jinjaGlobals();
    // Jinja2's include/extends/import also take a list of names: the first that exists is used
    const getTemplate = this.env.getTemplate.bind(this.env);
    this.env.getTemplate = (name: unknown, ...rest: unknown[]) => {
      // a name built by a macro is Markup in Jinja2, which is a str: it names the template too
      if (isSafeString(name)) name = name.val;
      if (Array.isArray(name)) name = name.map((n) => (isSafeString(n) ? n.val : n)).find((n) => this.exists(String(n))) ?? name[0];
      return getTemplate(name, ...rest);
    };
    const hooks: RenderHooks = {
      globals: () => this.current().globals,
      renderFile: (name, variables) => this.renderImported(name, variables),
      parseData: (kind, text, name) => parseData(kind, text, name),
      noteCallError: (err) => {
        this.current().callError ??= err;
      },
    };
    this.env.brine = createRuntime(() => hooks);
  }

  private current(): Render {
    const r = this.stack[this.stack.length - 1];
    if (!r) throw new Error('no render in progress');
    return r;
  }

  private displayName(name: string): string {
    const top = this.current().env.source;
    return top.startsWith('salt://') ? `salt://${name}` : name;
  }

  /** Compiles (or takes from the cache) one template text. */
  private template(name: string, text: string): Any {
    const key = `${name}\0${text}`;
    const hit = this.templates.get(key);
    if (hit) return hit;
    let props: Any;
    try {
      const ast = transformer.transform(parseTemplate(text, EXTENSIONS), [], name);
      const c: BrineCompiler = new (BrineCompiler as Any)(name, false);
      c.names = { filters: FILTER_NAMES, tests: TEST_NAMES };
      c.compile(ast);
      props = new Function(c.getCode())();
    } catch (err) {
      throw this.compileError(name, text, err);
    }
    const tmpl = new (nunjucks as Any).Template({ type: 'code', obj: props }, this.env, name, true);
    if (this.templates.size >= MAX_CACHE) this.templates.delete(this.templates.keys().next().value!);
    this.templates.set(key, tmpl);
    return tmpl;
  }

  private compileError(name: string, text: string, err: unknown): BrineError {
    if (err instanceof BrineError) return err;
    if (err instanceof Unsupported) return locate('TEMPLATE_UNSUPPORTED', name, err.lineno + 1, err.colno + 1, err.message, text);
    const e = err as { lineno?: number; colno?: number; message?: string };
    let msg = String(e.message ?? err).replace(/^\([^)]*\)\s*(\[Line \d+, Column \d+\])?\s*/, '');
    let line = e.lineno;
    let col = e.colno;
    if (err instanceof TypeError) {
      msg = 'unexpected end of template or malformed tag';
      // nunjucks gives no position here; the usual cause is a tag left open: point at it
      const open = unclosedTag(text);
      if (open) {
        msg = `'${open.opener}' is never closed with '${open.closer}'`;
        line = open.line;
        col = open.col;
      }
    }
    if (/end of file$/.test(msg)) {
      // a block left open (a truncated file, a missing endif): Jinja2's message, at the block's tag
      const block = unclosedBlock(text);
      if (block) ({ message: msg, line, col } = block);
    }
    return locate('RENDER_FAILED', name, line ?? 1, col ?? 0, `Jinja syntax error: ${msg.trim()}`, text, '', err);
  }

  /** Resolves a name as Salt's loader does; a name it moves tpldir for updates the globals' `tpldir` too. */
  private resolve(name: string): string | undefined {
    const r = this.current();
    const before = r.loader.tpldir;
    const resolved = resolveTemplateName(name, r.loader);
    if (r.loader.tpldir !== before) r.globals.tpldir = r.loader.tpldir;
    return resolved;
  }

  /** The text of a template by name, remembered as Jinja2's cache would, or undefined. */
  private load(name: string): { resolved: string; raw: string } | undefined {
    const r = this.current();
    const resolved = this.resolve(name);
    const raw = resolved === undefined ? undefined : r.env.loadFile(resolved);
    if (resolved === undefined || raw === undefined) return undefined;
    rememberLoaded(name, resolved, r.loader);
    return { resolved, raw };
  }

  private exists(name: string): boolean {
    return this.load(name) !== undefined;
  }

  private getSource(name: string): Any {
    const r = this.current();
    const found = this.load(name);
    if (found === undefined) return null;
    const { resolved, raw } = found;
    const shown = this.displayName(resolved);
    const text = normaliseSource(raw);
    r.sources.set(shown, text);
    try {
      return { src: { type: 'code', obj: this.template(shown, text).tmplProps }, path: shown, noCache: true };
    } catch (err) {
      if (err instanceof BrineError) r.compileError ??= err;
      throw err;
    }
  }

  private renderImported(name: string, variables: Record<string, unknown> | null): string {
    const r = this.current();
    const found = this.load(name);
    if (found === undefined) throw new PyError(`TemplateNotFound: ${name}`);
    const { resolved, raw } = found;
    const shown = this.displayName(resolved);
    const text = normaliseSource(raw);
    r.sources.set(shown, text);
    return this.template(shown, text).render({ ...r.globals, ...(variables ?? {}) });
  }

  /** Renders one template text with Salt's variables to text. */
  render(text: string, env: RenderEnv): string {
    const src = normaliseSource(text);
    const ctx = env.context;
    const tpldir = typeof ctx.tpldir === 'string' ? ctx.tpldir : '';
    const render: Render = { env, globals: {}, sources: new Map([[env.source, src]]), loader: newLoaderState(tpldir) };
    const grains = this.grainsFor(env, render);
    const pillar = (ctx.pillar ?? {}) as Record<string, unknown>;
    const opts = (ctx.opts ?? {}) as Record<string, unknown>;
    const globals: Record<string, unknown> = {
      saltenv: env.saltenv,
      pillar,
      opts,
      salt: saltProxy({ grains, pillar, opts, call: (fun, args, kwargs) => env.callFunction(fun, args, kwargs), ...(env.log ? { log: env.log } : {}) }),
      ...ctx,
      grains,
    };
    render.globals = globals;
    this.stack.push(render);
    const strictBefore = setStrictUndefined(opts.allow_undefined !== true);
    forgetUndefined();
    try {
      const out = this.template(env.source, src).render(globals) as string;
      // Salt re-adds the trailing newline Jinja2 drops
      return /\r?\n$/.test(text) ? `${out}\n` : out;
    } catch (err) {
      throw this.runtimeError(err, render);
    } finally {
      setStrictUndefined(strictBefore);
      this.stack.pop();
    }
  }

  /** The `grains` templates see: a guarded view when the caller says they came from a minion. */
  private grainsFor(env: RenderEnv, render: Render): Record<string, unknown> {
    const raw = (env.context.grains ?? {}) as Record<string, unknown>;
    const untrusted = env.untrustedGrains;
    if (!untrusted) return raw;
    return guardGrains(raw, {
      minion: untrusted.minion,
      onRefused: (grain, error) => {
        render.grainError ??= error;
        untrusted.onRefused?.(grain);
      },
    });
  }

  private runtimeError(err: unknown, render: Render): BrineError {
    if (render.compileError) return render.compileError;
    // nunjucks wraps the real error in TemplateErrors (one per template it crossed): find it
    let cause: unknown = err;
    while (cause instanceof Error && cause.name === 'Template render error' && cause.cause !== undefined) cause = cause.cause;
    // a template cannot catch, so a refused grain read is what ended the render
    if (render.grainError !== undefined) cause = render.grainError;
    if (cause instanceof Error && cause.name === 'Template render error' && render.callError !== undefined) cause = render.callError;
    if (cause instanceof BrineError && (cause.code === 'TEMPLATE_UNSUPPORTED' || cause.code === 'RENDER_FAILED')) return cause;
    const message = String(errorMessage(err) ?? err);
    const m = /\(([^()\n]*)\) \[Line (\d+)(?:, Column (\d+))?\]/.exec(message);
    const file = m?.[1] ?? render.env.source;
    const line = m ? Number(m[2]) : 1;
    const col = m?.[3] ? Number(m[3]) : 0;
    // an unsafe grain keeps its own code (the caller reports it apart from template mistakes)
    if (cause instanceof BrineError && cause.code === 'GRAIN_UNSAFE') {
      return locate('GRAIN_UNSAFE', file, line, col, `GRAIN_UNSAFE: ${cause.message}`, render.sources.get(file), '', cause);
    }
    let what: string;
    if (cause instanceof BrineError) what = `${cause.code}: ${cause.message}`;
    else if (cause instanceof Error && cause.name !== 'Template render error') what = cause.message;
    else what = (message.split('\n').pop() ?? message).trim().replace(/^(\w*Error: )+/, '');
    return locate('RENDER_FAILED', file, line, col, `Jinja error: ${what}`, render.sources.get(file), '', cause);
  }
}

function parseData(kind: string, text: string, name: string): unknown {
  if (kind === 'text') return text;
  if (kind === 'json') {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new PyError(`${name}: invalid JSON: ${errorMessage(err)}`);
    }
  }
  try {
    return loadYaml(text, mkFloat, { keyOrder: recordKeyOrder });
  } catch (err) {
    if (err instanceof YamlLoadError) throw new PyError(`${name}: YAML error at line ${err.problem.line} column ${err.problem.col}: ${err.problem.message}`);
    throw err;
  }
}
