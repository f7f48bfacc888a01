#!/usr/bin/env bash
# Makes sure a Redis server answers at 127.0.0.1:6379 (the shared rate-limit store's tests use it).
# Installs and starts it when needed; it keeps nothing on disk.
set -euo pipefail
if ! command -v redis-server >/dev/null 2>&1; then
  echo "installing redis-server"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "starting redis-server"
  install -d /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 40); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.25; done
fi
redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null || { echo "Redis does not answer on 127.0.0.1:6379" >&2; exit 1; }
echo "Redis $(redis-cli -h 127.0.0.1 -p 6379 INFO server | sed -n 's/^redis_version:\(.*\)\r$/\1/p') ready"
