#!/usr/bin/env bash
# What the scale tests (test/scale) start besides MariaDB: the Galera provider (galera-4), HAProxy,
# and rsync for the Galera nodes' state transfers (wsrep_sst_rsync itself comes with
# mariadb-server, see ensure-mariadb.sh). Installs only what is missing, from Debian's packages,
# without prompting; prints one line of versions.
set -euo pipefail

missing=()
[ -f /usr/lib/galera/libgalera_smm.so ] || missing+=(galera-4)
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
command -v rsync >/dev/null 2>&1 || missing+=(rsync)

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}"
  log=$(mktemp)
  # apt's notes (debconf without apt-utils, …) are shown only when the install fails.
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"; } </dev/null >"$log" 2>&1; then
    cat "$log" >&2
    exit 1
  fi
  rm -f "$log"
fi

for tool in /usr/sbin/haproxy /usr/bin/wsrep_sst_rsync; do
  [ -x "$tool" ] || { echo "$tool is missing" >&2; exit 1; }
done
haproxy_version=$(/usr/sbin/haproxy -v | sed -n '1s/^HAProxy version \([^ ]*\).*/\1/p')
galera_version=$(dpkg-query -W -f='${Version}' galera-4 2>/dev/null || echo unknown)
rsync_version=$(rsync --version | sed -n '1s/^rsync *version \([^ ]*\).*/\1/p')
echo "galera-4 ${galera_version}, HAProxy ${haproxy_version}, rsync ${rsync_version} ready"
