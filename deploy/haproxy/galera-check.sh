#!/bin/sh
# HAProxy external check for a MariaDB Galera node (deploy/haproxy/galera.cfg): passes only while
# the node is Synced (wsrep_local_state = 4) in the Primary component. A joiner, a donor, a node
# cut off from the majority, a frozen or a dead node fails, so HAProxy takes it out of rotation.
#
# HAProxy runs it as: galera-check.sh <proxy_address> <proxy_port> <server_address> <server_port>
# with an empty environment (PATH from "external-check path", HAPROXY_* only). The account it
# connects as therefore comes from an option file next to this script, galera-check.cnf, when
# present (MariaDB client format: "[client]" then "user=…" and "password=…"); otherwise it connects
# as haproxy_check without a password. The account needs no privilege (SHOW STATUS needs none):
#   CREATE USER 'haproxy_check'@'<haproxy host>' IDENTIFIED BY '…';
# Each check is one short connection; a node that does not answer within 1 s fails the check.
set -u

address=${3:?usage: galera-check.sh <proxy_address> <proxy_port> <server_address> <server_port>}
port=${4:?server port missing}
options=${0%.sh}.cnf

if [ -r "$options" ]; then
  set -- "--defaults-extra-file=$options"
else
  set -- "--user=haproxy_check"
fi

status=$(mariadb "$@" --protocol=tcp --host="$address" --port="$port" --connect-timeout=1 \
  --batch --skip-column-names \
  --execute="SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state', 'wsrep_cluster_status')" \
  2>/dev/null) || exit 1

tab=$(printf '\t')
case "$status" in *"wsrep_cluster_status${tab}Primary"*) ;; *) exit 1 ;; esac
case "$status" in *"wsrep_local_state${tab}4"*) exit 0 ;; *) exit 1 ;; esac
