// The web view's client for the brine API (salt-api shapes). The token lives in sessionStorage
// (gone with the tab); every call sends it as X-Auth-Token plus X-Requested-With, the header the
// API's CSRF defence asks of cookie-authenticated writes (a cross-site form cannot set it).

const TOKEN_KEY = 'brine.token';
const USER_KEY = 'brine.user';

export class ApiError extends Error {
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let onUnauthorized = () => {};

export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function user() {
  return sessionStorage.getItem(USER_KEY);
}

export function forget() {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(USER_KEY);
}

function errorText(status, body) {
  const e = body && typeof body === 'object' ? (body.error ?? body.return?.[0]?.error ?? body) : undefined;
  if (e && typeof e === 'object' && typeof e.message === 'string') return { message: e.message, code: typeof e.code === 'string' ? e.code : undefined };
  if (typeof body === 'string' && body.trim() !== '') return { message: body.trim().slice(0, 500) };
  return { message: `the API answered HTTP ${status}` };
}

export async function request(method, path, body) {
  const headers = { Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest' };
  const t = token();
  if (t) headers['X-Auth-Token'] = t;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', cache: 'no-store' });
  const text = await res.text();
  let parsed = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text for the error message
  }
  if (!res.ok) {
    const { message, code } = errorText(res.status, parsed);
    if (res.status === 401 && path !== '/login') onUnauthorized(message);
    throw new ApiError(res.status, message, code);
  }
  return parsed;
}

export async function login(username, password, eauth) {
  const body = await request('POST', '/login', { username, password, eauth });
  const session = body?.return?.[0];
  if (!session || typeof session.token !== 'string') throw new ApiError(500, 'the API answered /login without a token');
  sessionStorage.setItem(TOKEN_KEY, session.token);
  sessionStorage.setItem(USER_KEY, String(session.user ?? username));
  return session;
}

/** The eauth backends the master has configured (GET /login, public); [] when it cannot say. */
export async function eauthBackends() {
  try {
    const res = await fetch('/login', { headers: { Accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' });
    const body = await res.json();
    return Array.isArray(body?.eauth) ? body.eauth.filter((e) => typeof e === 'string' && e !== '') : [];
  } catch {
    return [];
  }
}

export async function logout() {
  try {
    await request('POST', '/logout');
  } finally {
    forget();
  }
}

/** One lowstate chunk through POST /; returns its element of the return list. */
export async function lowstate(chunk) {
  const body = await request('POST', '/', [chunk]);
  if (!body || !Array.isArray(body.return)) throw new ApiError(500, 'the API answered without a return list');
  return body.return[0];
}

/** A wheel call's own return value (salt-api wraps it in {tag, data: {return, success}}). */
export async function wheel(fun, kwargs = {}) {
  const r = await lowstate({ client: 'wheel', fun, ...kwargs });
  const data = r?.data ?? r;
  if (data && data.success === false) throw new ApiError(500, typeof data.return === 'string' ? data.return : `${fun} failed`);
  return data && 'return' in data ? data.return : data;
}

export function runner(fun, kwargs = {}) {
  return lowstate({ client: 'runner', fun, ...kwargs });
}
