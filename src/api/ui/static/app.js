// The web view's entry point: the login form, the tabs, the error banner and the refresh loop
// (the visible tab is re-read every REFRESH_MS; events arrive live).
import { eauthBackends, forget, login, logout, setUnauthorizedHandler, token, user } from './api.js';
import { byId, el, fill } from './dom.js';
import { startEvents, stopEvents, initEvents } from './events.js';
import { initFleet, refreshFleet } from './fleet.js';
import { initJobs, refreshJobs } from './jobs.js';
import { initKeys, refreshKeys } from './keys.js';
import { initReactions, refreshReactions } from './reactions.js';
import { initRun } from './run.js';
import { refreshOrchestrations } from './orchestrations.js';

const REFRESH_MS = 5000;
const REFRESH = new Map([
  ['fleet', refreshFleet],
  ['keys', refreshKeys],
  ['jobs', refreshJobs],
  ['reactor', refreshReactions],
  ['orchestrations', refreshOrchestrations],
]);
let current = 'fleet';
let timer;

function showError(err) {
  const banner = byId('app-error');
  banner.textContent = err instanceof Error ? `${err.code ? `${err.code}: ` : ''}${err.message}` : String(err);
  banner.hidden = false;
}

function clearError() {
  byId('app-error').hidden = true;
}

function refreshCurrent() {
  const fn = REFRESH.get(current);
  if (fn) fn().catch(showError);
}

function selectTab(name) {
  current = name;
  for (const b of byId('tabs').querySelectorAll('button')) b.classList.toggle('active', b.dataset.tab === name);
  for (const s of document.querySelectorAll('.tab')) s.hidden = s.id !== `tab-${name}`;
  clearError();
  refreshCurrent();
}

/** The login form offers the configured backends, the first selected (file when only file is configured). */
async function loadEauth() {
  const names = await eauthBackends();
  if (names.length === 0) return;
  const select = byId('login-eauth');
  fill(
    select,
    names.map((n) => el('option', { value: n }, n)),
  );
  select.value = names[0];
}

function showLogin(message) {
  clearInterval(timer);
  stopEvents();
  byId('app-view').hidden = true;
  byId('login-view').hidden = false;
  byId('login-error').textContent = message ?? '';
  byId('login-user').focus();
}

function showApp() {
  byId('login-view').hidden = true;
  byId('app-view').hidden = false;
  byId('who').textContent = user() ?? '';
  selectTab(current);
  startEvents();
  clearInterval(timer);
  timer = setInterval(() => {
    if (!document.hidden) refreshCurrent();
  }, REFRESH_MS);
}

function init() {
  setUnauthorizedHandler((message) => {
    forget();
    showLogin(`Signed out: ${message}`);
  });
  byId('login-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const button = byId('login-submit');
    button.disabled = true;
    byId('login-error').textContent = '';
    try {
      await login(byId('login-user').value, byId('login-password').value, byId('login-eauth').value);
      byId('login-password').value = '';
      showApp();
    } catch (err) {
      byId('login-error').textContent = err instanceof Error ? err.message : String(err);
    } finally {
      button.disabled = false;
    }
  });
  byId('logout').addEventListener('click', () => logout().finally(() => showLogin('Logged out.')));
  for (const b of byId('tabs').querySelectorAll('button')) b.addEventListener('click', () => selectTab(b.dataset.tab));
  initFleet(showError);
  initKeys(showError, () => refreshFleet().catch(showError));
  initRun(showError);
  initJobs(showError);
  initReactions(showError);
  initEvents();
  loadEauth();
  if (token()) showApp();
  else showLogin();
}

init();
