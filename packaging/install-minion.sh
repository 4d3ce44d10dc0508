#!/bin/sh
# Sets up a brine minion service on a Debian host from the npm tarball, in one command:
#
#   packaging/install-minion.sh brine-0.1.0.tgz --master salt.example.com [--id web1]
#
# 1. installs the package with `npm install -g --prefix PREFIX` (default /usr/local),
# 2. writes master: and id: into /etc/brine/minion (other lines are kept),
# 3. installs brine-minion.service with ExecStart pointing at PREFIX, enables it and (re)starts
#    it when systemd is running; otherwise (a container) says how to start the minion by hand.
#
# Idempotent: running it again with the same arguments changes nothing (the same tarball is not
# reinstalled; its SHA-256 is kept beside the package), with other arguments it updates the
# config and restarts the service. --root DIR installs into DIR as if it were / (staging an
# image, tests) and never starts anything. Uninstall: packaging/README.md.
set -eu

usage() {
  echo "usage: $0 TARBALL [--master HOST] [--id ID] [--prefix DIR] [--root DIR]" >&2
  exit 64
}

fail() {
  echo "install-minion: $1" >&2
  [ $# -lt 2 ] || echo "  fix: $2" >&2
  exit "${3:-1}"
}

TARBALL=""
MASTER=""
ID=""
PREFIX=/usr/local
ROOT=/
while [ $# -gt 0 ]; do
  case "$1" in
    --master) [ $# -ge 2 ] || usage; MASTER=$2; shift 2 ;;
    --id) [ $# -ge 2 ] || usage; ID=$2; shift 2 ;;
    --prefix) [ $# -ge 2 ] || usage; PREFIX=$2; shift 2 ;;
    --root) [ $# -ge 2 ] || usage; ROOT=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "install-minion: unknown option $1" >&2; usage ;;
    *) [ -z "$TARBALL" ] || usage; TARBALL=$1; shift ;;
  esac
done
[ -n "$TARBALL" ] || usage

# Values go into a YAML file and a unit file: allow only what a host name, an address or a
# minion ID needs, so nothing can add a line or a YAML construct.
case "$MASTER" in *[!A-Za-z0-9._:-]*) fail "--master '$MASTER' is not a host name or address" "use a name like salt.example.com, or an IPv4/IPv6 address" 64 ;; esac
case "$ID" in *[!A-Za-z0-9._@-]*) fail "--id '$ID' has characters a minion ID cannot have here" "use letters, digits, '.', '_', '-' and '@'" 64 ;; esac
case "$PREFIX" in /*) ;; *) fail "--prefix must be an absolute path, got '$PREFIX'" "" 64 ;; esac
case "$PREFIX$ROOT" in *[!A-Za-z0-9._/+-]*) fail "--prefix/--root may not contain spaces or special characters" "" 64 ;; esac
case "$ROOT" in /*) ;; *) fail "--root must be an absolute path, got '$ROOT'" "" 64 ;; esac
ROOT=${ROOT%/}
DEST="$ROOT$PREFIX"

[ -f "$TARBALL" ] || fail "no tarball at $TARBALL" "make one with \`npm pack\` in a brine checkout" 66
if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
  fail "must run as root to install a system service" "run it with sudo, or use --root DIR to stage an installation" 77
fi
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
  fail "node and npm are required" "apt-get install nodejs npm (Debian 13 ships Node 20; on Debian 12 use NodeSource's nodejs 20 or 22)" 69
NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]')
[ "$NODE_MAJOR" -ge 20 ] || fail "brine needs Node 20 or newer, this is $(node -v)" "install Node 20 or 22 (Debian 13's nodejs, or NodeSource's packages)" 69

# 1. the package (skipped when this very tarball is already installed there)
PKG="$DEST/lib/node_modules/brine"
CHANGED=no
SUM=$(sha256sum "$TARBALL" | cut -d' ' -f1)
if [ -f "$PKG/.install-tarball.sha256" ] && [ "$(cat "$PKG/.install-tarball.sha256")" = "$SUM" ] && [ -x "$DEST/bin/brine" ]; then
  echo "brine from $(basename "$TARBALL") is already installed in $PREFIX"
else
  echo "installing $(basename "$TARBALL") into $PREFIX (npm builds better-sqlite3 if no prebuilt binary fits)"
  # absolute path: npm must not read a relative name as a registry package
  case "$TARBALL" in /*) TGZ=$TARBALL ;; *) TGZ=$(pwd)/$TARBALL ;; esac
  npm install -g --prefix "$DEST" --no-audit --no-fund --prefer-offline "$TGZ" ||
    fail "npm install failed" "read npm's output above; native modules need python3, make and g++ when no prebuilt binary matches (apt-get install build-essential python3)"
  echo "$SUM" >"$PKG/.install-tarball.sha256"
  CHANGED=yes
fi

# 2. /etc/brine/minion: set master: and id: (when given), keep everything else
ETC="$ROOT/etc/brine"
CONF="$ETC/minion"
install -d -m 0755 "$ETC"
BEFORE=$(cat "$CONF" 2>/dev/null || true)
[ -f "$CONF" ] || printf '# brine minion configuration (Salt option names); see docs/configuration.md\n' >"$CONF"
set_option() {
  # $1 key, $2 value: replace an existing top-level `key:` line, else append one
  if grep -q "^$1:" "$CONF"; then
    sed -i "s|^$1:.*|$1: $2|" "$CONF"
  else
    printf '%s: %s\n' "$1" "$2" >>"$CONF"
  fi
}
[ -z "$MASTER" ] || set_option master "$MASTER"
[ -z "$ID" ] || set_option id "$ID"
chmod 0644 "$CONF"
[ "$BEFORE" = "$(cat "$CONF")" ] || CHANGED=yes
grep -q '^master:' "$CONF" || echo "note: no master: in $CONF; the minion looks for a host named 'salt' (pass --master HOST)"

# 3. the unit, pointing at this prefix. systemd's PATH has /usr/local/bin and /usr/bin: a node
# elsewhere (nvm, /opt) is named by its absolute path.
UNIT_DIR="$ROOT/etc/systemd/system"
UNIT="$UNIT_DIR/brine-minion.service"
NODE_DIR=$(dirname "$(command -v node)")
case "$NODE_DIR" in
  /usr/bin|/bin|/usr/local/bin) EXEC="$PREFIX/bin/brine minion" ;;
  *) EXEC="$(command -v node) $PREFIX/lib/node_modules/brine/bin/brine.js minion" ;;
esac
install -d -m 0755 "$UNIT_DIR"
TMP_UNIT=$(mktemp "$UNIT_DIR/.brine-minion.XXXXXX")
sed "s|^ExecStart=.*|ExecStart=$EXEC|" "$PKG/packaging/systemd/brine-minion.service" >"$TMP_UNIT"
chmod 0644 "$TMP_UNIT"
if [ -f "$UNIT" ] && cmp -s "$TMP_UNIT" "$UNIT"; then
  rm -f "$TMP_UNIT"
else
  mv -f "$TMP_UNIT" "$UNIT"
  CHANGED=yes
fi
echo "unit: $UNIT (ExecStart=$EXEC)"

if ! command -v systemctl >/dev/null 2>&1; then
  echo "systemctl not found: the unit is installed but not enabled. Start the minion by hand:"
  echo "  $EXEC"
  exit 0
fi
if [ -n "$ROOT" ]; then
  systemctl --root="$ROOT" enable brine-minion.service
  echo "staged under $ROOT: enabled, not started"
  exit 0
fi
systemctl enable brine-minion.service
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload
  if [ "$CHANGED" = yes ]; then
    # a new package, config or unit takes effect now
    systemctl restart brine-minion.service
  else
    systemctl start brine-minion.service
  fi
  echo "brine-minion.service is enabled and running (journalctl -u brine-minion -f)"
else
  echo "systemd is not running here (a container?): the service is enabled for the next boot."
  echo "Start the minion by hand now with:"
  echo "  $EXEC &"
fi
echo "Then, on the master: brine key -f <id> (compare fingerprints) and brine key -a <id>"
