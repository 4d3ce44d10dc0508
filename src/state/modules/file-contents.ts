// What file.managed should write: the bytes of a source (rendered when `template` is set), or
// `contents` / `contents_pillar` text, with Salt's contents_newline rule.

import { readFileSync } from 'node:fs';
import { traverseDictAndList } from '../../modules/traverse.js';
import type { StateContext } from '../types.js';
import { errorText } from './file-result.js';
import { resolveSource, verifySource } from './file-source.js';

export interface ContentsRequest {
  source?: unknown;
  sourceHash?: string;
  /** The name to look up in a hash file instead of the source's file name. */
  sourceHashName?: string;
  /** An http(s):// source may be downloaded without a hash to check. */
  skipVerify?: boolean;
  /** false: https downloads do not verify the server's certificate (Salt's verify_ssl). */
  verifySsl?: boolean;
  contents?: unknown;
  contentsPillar?: string;
  contentsNewline: boolean;
  template?: string;
  context?: Record<string, unknown>;
  defaults?: Record<string, unknown>;
  /** file.managed's own arguments a template sees (Salt's get_managed passes name, user, group, mode, attrs; source is added here). */
  templateVars?: Record<string, unknown>;
  /** The state's undeclared arguments (templateKwargs): variables of a source template only, as Salt's apply_template_on_contents gets none. */
  kwargs?: Record<string, unknown>;
}

type Outcome = { contents?: Buffer } | { error: string };

/**
 * Salt's STATE_INTERNAL_KEYWORDS that brine's chunk binding still hands a **kwargs state (its
 * runtime reads the others itself), and `env`, which file.managed drops: Salt's format_call keeps
 * them all out of the state function's kwargs, so out of a template's variables.
 */
const NOT_TEMPLATE_KWARGS: ReadonlySet<string> = new Set(['saltenv', 'runas', 'runas_password', 'umask', 'reload_grains', 'reload_pillar', 'prerequired', 'cmd_opts_exclude', 'env']);

/**
 * The arguments a file state does not declare, as template variables: Salt's file.managed passes
 * its **kwargs to file.get_managed, whose renderer makes every keyword a variable (below
 * defaults and context). Real trees rely on it: apache-formula writes `- context:` with the keys
 * under it at the same indentation, which YAML reads as `context: None` and `apache: {...}`
 * beside it, and its templates read `apache`.
 */
export function templateKwargs(extra: Readonly<Record<string, unknown>>, drop: readonly string[] = []): Record<string, unknown> {
  return Object.fromEntries(Object.entries(extra).filter(([k]) => !NOT_TEMPLATE_KWARGS.has(k) && !drop.includes(k)));
}

/**
 * Renders text through a template engine: jinja (Salt's default) or py (a Python file whose run()
 * returns the text, run with python3 as the `#!py` renderer is). `vars` are
 * the state's own arguments as template variables (Salt's file.get_managed renders with name,
 * source, user, group, mode and attrs), under defaults and context, which win as in Salt.
 */
export async function renderWith(
  ctx: StateContext,
  engine: string,
  text: string,
  source: string,
  defaults?: Record<string, unknown>,
  context?: Record<string, unknown>,
  vars?: Record<string, unknown>,
): Promise<{ text: string } | { error: string }> {
  if (engine !== 'jinja' && engine !== 'py') return { error: `Specified template format ${engine} is not supported (TEMPLATE_UNSUPPORTED); use template: jinja, py or none` };
  try {
    return { text: await ctx.renderTemplate(text, { engine, source, context: { ...(vars ?? {}), ...(defaults ?? {}), ...(context ?? {}) } }) };
  } catch (err) {
    return { error: `Unable to render ${source}: ${errorText(err)}` };
  }
}

function contentsText(raw: unknown): string {
  if (Array.isArray(raw)) return raw.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('\n');
  return typeof raw === 'string' ? raw : JSON.stringify(raw);
}

/** The bytes to write, undefined when neither source nor contents is given, or a comment why not. */
export async function wantedContents(ctx: StateContext, req: ContentsRequest): Promise<Outcome> {
  const hasContents = req.contents !== undefined && req.contents !== null;
  const hasPillar = req.contentsPillar !== undefined && req.contentsPillar !== '';
  const hasSource = req.source !== undefined && req.source !== null && req.source !== '';
  if ([hasContents, hasPillar, hasSource].filter(Boolean).length > 1) {
    return { error: "Only one of 'source', 'contents' and 'contents_pillar' is permitted; keep one" };
  }
  if (hasSource) {
    const src = await resolveSource(ctx, req.source, { sourceHash: req.sourceHash, sourceHashName: req.sourceHashName, skipVerify: req.skipVerify, verifySsl: req.verifySsl });
    if ('error' in src) return src;
    const bad = await verifySource(ctx, src.ok, req.sourceHash, req.sourceHashName, req.verifySsl !== false);
    if (bad) return { error: bad };
    // synchronous, like manageFile's checks: the state runs in its own worker thread
    const bytes = readFileSync(src.ok.localPath);
    if (!req.template) return { contents: bytes };
    const out = await renderWith(ctx, req.template, bytes.toString('utf8'), src.ok.url, req.defaults, req.context, { ...req.templateVars, source: src.ok.url, ...req.kwargs });
    return 'error' in out ? out : { contents: Buffer.from(out.text) };
  }
  if (!hasContents && !hasPillar) return {};
  let text: string;
  if (hasPillar) {
    const value = traverseDictAndList(ctx.exec.pillar?.() ?? {}, req.contentsPillar!, undefined);
    if (value === undefined || value === null) return { error: `Pillar ${req.contentsPillar} does not exist; check the key (nested keys are separated by ':')` };
    text = contentsText(value);
  } else text = contentsText(req.contents);
  if (req.template) {
    const out = await renderWith(ctx, req.template, text, `${ctx.low.__sls__}:${ctx.low.__id__} (contents)`, req.defaults, req.context, { ...req.templateVars, source: null });
    if ('error' in out) return out;
    text = out.text;
  }
  if (req.contentsNewline && !text.endsWith('\n')) text += '\n';
  return { contents: Buffer.from(text) };
}
