#!/usr/bin/env bash
# Makes sure a MariaDB server answers at 127.0.0.1:3306 for root with an empty password and that
# the `test` database exists. Installs and starts it when needed (the Debian
# package does not start the server, and mariadbd refuses to run as root without --user).
set -euo pipefail
ping_tcp() { mariadb-admin --protocol=tcp -h127.0.0.1 -P3306 -uroot ping >/dev/null 2>&1; }

if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
  echo "installing mariadb-server"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server >/dev/null
fi

if ! mariadb-admin ping >/dev/null 2>&1; then
  echo "starting mariadbd"
  install -d -o mysql -g mysql /run/mysqld
  # --pidfile: without it start-stop-daemon takes any mariadbd (a test's private server, a Galera
  # node) for this one and starts nothing.
  start-stop-daemon --start --oknodo --background --pidfile /run/mysqld/mysqld.pid --exec /usr/sbin/mariadbd -- --user=mysql
  for _ in $(seq 1 120); do mariadb-admin ping >/dev/null 2>&1 && break; sleep 0.5; done
fi

if ! ping_tcp; then
  # Out of the box root@localhost is unix_socket only; add an empty password for TCP.
  mariadb -e "ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('') OR unix_socket;"
fi
ping_tcp || { echo "MariaDB does not answer on 127.0.0.1:3306" >&2; exit 1; }

# MySQL 8's default strictness, so a query MySQL 8 would refuse fails here too.
mariadb --protocol=tcp -h127.0.0.1 -uroot -e "
  SET GLOBAL sql_mode='ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
  CREATE DATABASE IF NOT EXISTS test CHARACTER SET utf8mb4;"
mariadb --protocol=tcp -h127.0.0.1 -uroot -N -e "SELECT CONCAT('MariaDB ', VERSION(), ' ready')"
