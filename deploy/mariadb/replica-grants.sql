-- Run once by the replica's first start (docker-compose.scale.yml mounts it into
-- /docker-entrypoint-initdb.d/): regapi's account reads the replica's state with
-- SHOW ALL SLAVES STATUS, which needs REPLICA MONITOR. The account itself is the image's
-- MARIADB_USER; on the replica it only ever reads.
GRANT REPLICA MONITOR ON *.* TO 'regapi'@'%';
