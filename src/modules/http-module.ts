// http.query as Salt 3007 answers it (salt/modules/http.py over salt/utils/http.py query with its
// default tornado backend): {'body': text} on success, plus 'status', 'headers', 'text' and
// 'dict' when asked; an HTTP error status gives {'status': code, 'error': ...} and a connection
// failure {'error': ...} (and 'status': 0 with status=True), never an exception. Requests go
// through Node's fetch (undici), so `backend` is ignored.

import { BrineError, errorMessage } from '../util/errors.js';
import { BRINE_VERSION } from './version.js';
import { yamlPackage } from '../util/yaml-package.js';
import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';

const HTTP_REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** `params` appended to the URL as tornado's url_concat does. */
function withParams(url: string, params: unknown): string {
  if (params === undefined || params === null) return url;
  if (typeof params !== 'object' || Array.isArray(params)) throw new BrineError('BAD_ARGUMENTS', `http.query: params must be a mapping of query arguments, got ${JSON.stringify(params)}`);
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.append(k, String(v));
  return u.toString();
}

function requestHeaders(a: { header_dict?: unknown; header_list?: unknown; agent?: string }): Record<string, string> {
  const out: Record<string, string> = {};
  if (a.header_dict !== undefined && a.header_dict !== null) {
    if (typeof a.header_dict !== 'object' || Array.isArray(a.header_dict)) throw new BrineError('BAD_ARGUMENTS', 'http.query: header_dict must be a mapping of header names to values');
    for (const [k, v] of Object.entries(a.header_dict)) out[k] = String(v);
  }
  // header_list: 'Name: value' lines; Salt keeps only the text up to a second ':'
  for (const line of Array.isArray(a.header_list) ? a.header_list : []) {
    const comps = String(line).split(':');
    if (comps.length >= 2) out[comps[0]!.trim()] = comps[1]!.trim();
  }
  out['User-agent'] = a.agent ?? `brine/${BRINE_VERSION} http.query()`;
  return out;
}

/** salt.utils.http.query's decode: json, yaml or plain by type (auto: from content-type). */
function decodeBody(text: string, decodeType: string, contentType: string | null): { dict?: unknown; plain?: true } {
  let type = decodeType;
  if (type === 'auto') {
    const ct = contentType ?? 'application/json';
    type = ct.includes('xml') ? 'xml' : ct.includes('json') ? 'json' : ct.includes('yaml') ? 'yaml' : 'plain';
  }
  try {
    if (type === 'json') return { dict: JSON.parse(text) };
    // the yaml package on first use: importing it here loaded it in every job worker (~30 ms)
    if (type === 'yaml') return { dict: yamlPackage().parse(text) };
  } catch (err) {
    throw new BrineError('EXEC_FAILED', `http.query: the body is not valid ${type} (${errorMessage(err)}); query with decode=False to get it as text`, { cause: err });
  }
  if (type === 'plain') return { plain: true };
  if (type === 'xml') throw new BrineError('BAD_ARGUMENTS', "http.query: decode_type 'xml' is not supported by brine; query with decode=False and parse the body, or ask for JSON");
  throw new BrineError('BAD_ARGUMENTS', `http.query: Invalid decode_type specified. Valid decode types are: ('json', 'xml', 'yaml', 'plain'), got '${type}'`);
}

export const httpFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'http.query',
    doc: "Query a URL and return Salt's {'body': ...} (with 'status', 'headers', 'text', 'dict' when asked; 'error' when it failed).",
    params: [
      { name: 'url', type: 'string', required: true, doc: 'http:// or https:// URL' },
      { name: 'method', type: 'string', default: 'GET', doc: 'HTTP method' },
      { name: 'params', type: 'any', doc: 'query arguments added to the URL' },
      { name: 'data', type: 'string', doc: 'request body' },
      { name: 'header_dict', type: 'any', doc: 'request headers as a mapping' },
      { name: 'header_list', type: 'list', doc: "request headers as 'Name: value' lines" },
      { name: 'username', type: 'string', doc: 'basic authentication user (with password)' },
      { name: 'password', type: 'string', doc: 'basic authentication password' },
      { name: 'decode', type: 'bool', default: false, doc: "decode the body into 'dict'" },
      { name: 'decode_type', type: 'string', default: 'auto', doc: 'json, yaml, plain or auto (from the content type); xml is not supported' },
      { name: 'status', type: 'bool', default: false, doc: "add the HTTP status as 'status'" },
      { name: 'headers', type: 'bool', default: false, doc: "add the response headers as 'headers' (names in lower case)" },
      { name: 'text', type: 'bool', default: false, doc: "add the body again as 'text'" },
      { name: 'raise_error', type: 'bool', default: true, doc: 'False: an HTTP error status still returns the body, as a success would' },
      { name: 'verify_ssl', type: 'bool', default: true, doc: 'only True: brine always verifies certificates (against Node’s CA store plus NODE_EXTRA_CA_CERTS)' },
      { name: 'agent', type: 'string', doc: 'the User-agent header' },
      { name: 'backend', type: 'string', doc: 'ignored: brine has one HTTP client (Node fetch)' },
    ],
    kwargs: true,
    run: async (ctx, a) => {
      const n = a.named;
      if (!n.verify_ssl) {
        throw new BrineError(
          'BAD_ARGUMENTS',
          'http.query: verify_ssl=False is not supported by brine (certificates are always verified); give the server a certificate the system trusts or add its CA with NODE_EXTRA_CA_CERTS',
        );
      }
      if (!/^https?:\/\//i.test(n.url)) throw new BrineError('BAD_ARGUMENTS', `http.query: the URL must start with http:// or https://, got '${n.url}'`);
      const url = withParams(n.url, n.params);
      const headers = requestHeaders({ header_dict: n.header_dict, header_list: n.header_list, ...(n.agent !== undefined ? { agent: n.agent } : {}) });
      if (n.username !== undefined && n.password !== undefined) headers.Authorization = `Basic ${Buffer.from(`${n.username}:${n.password}`).toString('base64')}`;
      const ret: Record<string, unknown> = {};
      let res: Response;
      try {
        res = await fetch(url, {
          method: n.method.toUpperCase(),
          headers,
          ...(n.data !== undefined ? { body: n.data } : {}),
          // the job's own timeout and cancellation bound the request (Salt's http_request_timeout is not read)
          signal: ctx.signal,
          redirect: 'follow',
        });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        const cause = (err as { cause?: { message?: string } }).cause?.message;
        if (n.status) ret.status = 0;
        ret.error = cause ?? errorMessage(err);
        return ret;
      }
      const body = await res.text();
      if (!res.ok && n.raise_error) return { status: res.status, error: `HTTP ${res.status}: ${res.statusText || HTTP_REASONS[res.status] || 'Unknown'}` };
      ret.body = body;
      if (n.status) ret.status = res.status;
      if (n.headers) ret.headers = Object.fromEntries(res.headers.entries());
      let text = n.text;
      if (n.decode) {
        const d = decodeBody(body, n.decode_type, res.headers.get('content-type'));
        if (d.plain) text = true;
        else ret.dict = d.dict;
      }
      if (text) ret.text = body;
      return ret;
    },
  }),
];
