// The `api:` section of the master config (or Salt's `rest_cherrypy:` with the same keys), read
// into checked settings. Unknown keys are refused with the list of known ones.

import { BrineError } from '../util/errors.js';

export interface ApiOptions {
  port: number;
  host: string;
  sslCrt?: string;
  sslKey?: string;
  disableSsl: boolean;
  /** Largest request body, bytes. */
  maxBody: number;
  /** Seconds a client has to send its headers (and finish the TLS handshake). */
  headerTimeoutS: number;
  /** Seconds a client has to send the whole request, body included. */
  bodyTimeoutS: number;
  /** Hooks (POST /hook/...) are served only when set: the URL prefix, Salt's default /hook. */
  webhookUrl?: string;
  /** Origins (scheme://host:port) allowed for cookie-authenticated changes, besides the API's own. */
  corsOrigins: string[];
  /** Served by `brine api` (its own process, over the control socket), not by the master. */
  standalone: boolean;
  /** rest_cherrypy `app`: an HTML file served at appPath and every path under it (an HTML5-history front end). */
  app?: string;
  /** rest_cherrypy `app_path`, Salt's default /app. */
  appPath: string;
  /** rest_cherrypy `static`: a directory of front-end files served under staticPath. */
  static?: string;
  /** rest_cherrypy `static_path`, Salt's default /static. */
  staticPath: string;
  /** Which section it came from, for messages. */
  section: 'api' | 'rest_cherrypy';
}

const KEYS = new Set([
  'port',
  'host',
  'ssl_crt',
  'ssl_key',
  'disable_ssl',
  'max_body',
  'header_timeout',
  'body_timeout',
  'webhook_url',
  'cors_origins',
  'standalone',
  'app',
  'app_path',
  'static',
  'static_path',
]);
/** First path segments the API itself answers; app_path and static_path may not take them. */
const API_SEGMENTS = new Set(['login', 'logout', 'minions', 'jobs', 'keys', 'events', 'run', 'stats', 'metrics', 'ui', 'token', 'ws', 'hook']);
// rest_cherrypy keys brine accepts and ignores, so a Salt config loads unchanged
const SALT_IGNORED = new Set([
  'debug',
  'thread_pool',
  'socket_queue_size',
  'expire_responses',
  'collect_stats',
  'root_prefix',
  'log_access_file',
  'log_error_file',
  'webhook_disable_auth',
  'stats_disable_auth',
  'ssl_chain',
  'max_request_body_size',
]);

function bad(section: string, msg: string): BrineError {
  return new BrineError('CONFIG_VALUE', `${section}: ${msg}`);
}

function int(section: string, raw: Record<string, unknown>, key: string, dflt: number, min: number, max: number): number {
  const v = raw[key] ?? dflt;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) throw bad(section, `${key} must be an integer from ${min} to ${max}, not ${JSON.stringify(v)}`);
  return n;
}

function str(section: string, raw: Record<string, unknown>, key: string): string | undefined {
  const v = raw[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '') throw bad(section, `${key} must be a non-empty string`);
  return v;
}

/** app_path / static_path: '/name' (or 'name', as Salt strips the slash), clear of the API's own paths. */
function urlPrefix(section: string, raw: Record<string, unknown>, key: string, dflt: string, multi: boolean, webhookUrl: string | undefined): string {
  const v = raw[key] ?? dflt;
  const re = multi ? /^\/?[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*\/?$/ : /^\/?[A-Za-z0-9_.-]+\/?$/;
  if (typeof v !== 'string' || !re.test(v) || v.split('/').some((p) => p === '.' || p === '..'))
    throw bad(section, `${key} must be a URL path such as ${dflt}${multi ? '' : ' (one name, no further slashes)'}, not ${JSON.stringify(v)}`);
  const prefix = `/${v.replace(/^\/+|\/+$/g, '')}`;
  const first = prefix.split('/')[1]!;
  if (API_SEGMENTS.has(first) || (webhookUrl !== undefined && (prefix === webhookUrl || prefix.startsWith(`${webhookUrl}/`) || webhookUrl.startsWith(`${prefix}/`))))
    throw bad(section, `${key} ${prefix} would hide the API's own ${prefix.split('/').slice(0, 2).join('/')}; choose another path such as ${dflt}`);
  return prefix;
}

/** The API settings, or undefined when neither `api` nor `rest_cherrypy` is set (the API is off). */
export function apiOptionsFrom(opts: { api?: Record<string, unknown> | undefined; rest_cherrypy?: Record<string, unknown> | undefined }): ApiOptions | undefined {
  const section = opts.api !== undefined ? 'api' : opts.rest_cherrypy !== undefined ? 'rest_cherrypy' : undefined;
  if (!section) return undefined;
  const raw = (section === 'api' ? opts.api : opts.rest_cherrypy) ?? {};
  for (const key of Object.keys(raw)) {
    if (!KEYS.has(key) && !SALT_IGNORED.has(key)) throw bad(section, `unknown key ${key}; the keys are ${[...KEYS].join(', ')}`);
  }
  const disable = raw.disable_ssl ?? false;
  if (typeof disable !== 'boolean') throw bad(section, 'disable_ssl must be true or false');
  const standalone = raw.standalone ?? false;
  if (typeof standalone !== 'boolean') throw bad(section, 'standalone must be true (`brine api` serves the API) or false (the master does)');
  const sslCrt = str(section, raw, 'ssl_crt');
  const sslKey = str(section, raw, 'ssl_key');
  if ((sslCrt === undefined) !== (sslKey === undefined)) throw bad(section, 'set both ssl_crt and ssl_key, or neither (then pki_dir/api.crt, made at first start, is used)');
  let webhookUrl = str(section, raw, 'webhook_url');
  if (webhookUrl !== undefined) {
    if (!/^\/[A-Za-z0-9_\-/]*$/.test(webhookUrl)) throw bad(section, `webhook_url must be a path such as /hook, not ${JSON.stringify(webhookUrl)}`);
    webhookUrl = webhookUrl.replace(/\/+$/, '') || '/hook';
  }
  const origins = raw.cors_origins ?? [];
  if (!Array.isArray(origins) || !origins.every((o) => typeof o === 'string' && /^https?:\/\/[^/]+$/.test(o)))
    throw bad(section, 'cors_origins must be a list of origins such as https://ops.example.com:8443');
  const app = str(section, raw, 'app');
  const staticDir = str(section, raw, 'static');
  const appPath = urlPrefix(section, raw, 'app_path', '/app', false, webhookUrl);
  const staticPath = urlPrefix(section, raw, 'static_path', '/static', true, webhookUrl);
  if (appPath === staticPath || staticPath.startsWith(`${appPath}/`) || appPath.startsWith(`${staticPath}/`))
    throw bad(section, `app_path ${appPath} and static_path ${staticPath} overlap; give each its own path (Salt's defaults are /app and /static)`);
  return {
    port: int(section, raw, 'port', 8000, 0, 65535),
    host: str(section, raw, 'host') ?? '127.0.0.1',
    ...(sslCrt ? { sslCrt } : {}),
    ...(sslKey ? { sslKey } : {}),
    disableSsl: disable,
    maxBody: int(section, raw, 'max_body', 1024 * 1024, 1024, 256 * 1024 * 1024),
    headerTimeoutS: int(section, raw, 'header_timeout', 10, 1, 3600),
    bodyTimeoutS: int(section, raw, 'body_timeout', 30, 1, 3600),
    ...(webhookUrl ? { webhookUrl } : {}),
    corsOrigins: origins as string[],
    standalone,
    ...(app ? { app } : {}),
    appPath,
    ...(staticDir ? { static: staticDir } : {}),
    staticPath,
    section,
  };
}
