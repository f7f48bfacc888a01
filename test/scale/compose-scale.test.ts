import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { loadConfig, SETTING_NAMES } from "../../src/config/config";

// docker-compose.scale.yml (issue 21): no Docker engine here, so this checks the file, not a
// running stack: every variable given to an instance is a setting the service reads and is
// accepted by its validation, and the services are wired to each other as the instances expect.

const ROOT = join(__dirname, "../..");
const read = (name: string) => readFileSync(join(ROOT, name), "utf8");

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  networks?: Record<string, { ipv4_address?: string }>;
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
}

const compose = parse(read("docker-compose.scale.yml"), { merge: true }) as {
  services: Record<string, Service>;
  networks: Record<string, { ipam: { config: { subnet: string }[] } }>;
};
const services = compose.services;
const instances = Object.entries(services).filter(([, service]) => service.build !== undefined);
const addressOf = (service: Service) => Object.values(service.networks ?? {})[0]?.ipv4_address;
const hostOf = (url: string) => new URL(url).hostname;

describe("docker-compose.scale.yml", () => {
  it("has a primary, a replica, Redis, HAProxy and three regapi instances built from the Dockerfile", () => {
    expect(Object.keys(services).sort()).toEqual(["app1", "app2", "app3", "haproxy", "primary", "redis", "replica"]);
    expect(instances.map(([name]) => name)).toEqual(["app1", "app2", "app3"]);
    expect(services.primary.image).toMatch(/^mariadb:10\.11/);
    expect(services.replica.image).toBe(services.primary.image);
  });

  it("gives every instance the same variables, each one a setting the service reads and accepts", () => {
    const first = instances[0][1].environment!;
    for (const [name, service] of instances) {
      expect([name, service.environment]).toEqual([name, first]);
      const unknown = Object.keys(service.environment!).filter((variable) => !SETTING_NAMES.includes(variable));
      expect([name, unknown]).toEqual([name, []]);
    }
    const config = loadConfig(first);
    expect(config.database).toMatchObject({ kind: "mariadb", host: "primary", database: "regapi" });
    expect(config.replicas.databases).toEqual([expect.objectContaining({ kind: "mariadb", host: "replica" })]);
    expect(config.sharedState.redisUrl).toBe("redis://redis:6379");
    expect(config.demo).toBe(false);
  });

  it("points the instances at the services of the file, with the credentials those services create", () => {
    const env = instances[0][1].environment!;
    const primary = services.primary.environment!;
    for (const [url, server] of [
      [env.DATABASE_URL, "primary"],
      [env.DATABASE_REPLICA_URLS, "replica"],
    ] as const) {
      const parsed = new URL(url);
      expect(parsed.hostname).toBe(server);
      expect(decodeURIComponent(parsed.username)).toBe(services[server].environment!.MARIADB_USER);
      expect(decodeURIComponent(parsed.password)).toBe(services[server].environment!.MARIADB_PASSWORD);
      expect(parsed.pathname).toBe(`/${services[server].environment!.MARIADB_DATABASE}`);
    }
    expect(hostOf(env.REDIS_URL)).toBe("redis");
    expect(services.primary.environment!.MARIADB_USER).toBe(primary.MARIADB_USER);
  });

  it("replicates with GTIDs: the primary writes a row-format binary log, the replica follows it read-only", () => {
    const primary = services.primary.command!;
    const replica = services.replica.command!;
    expect(primary).toEqual(expect.arrayContaining(["--log-bin=mariadb-bin", "--binlog-format=ROW"]));
    const serverId = (command: string[]) => command.find((arg) => arg.startsWith("--server-id="));
    expect(serverId(primary)).toBeDefined();
    expect(serverId(replica)).toBeDefined();
    expect(serverId(primary)).not.toBe(serverId(replica));
    expect(replica).toContain("--read-only=ON");
    const env = services.replica.environment!;
    expect(env.MARIADB_MASTER_HOST).toBe("primary");
    expect(env.MARIADB_REPLICATION_USER).toBe(services.primary.environment!.MARIADB_REPLICATION_USER);
    expect(env.MARIADB_REPLICATION_PASSWORD).toBe(services.primary.environment!.MARIADB_REPLICATION_PASSWORD);
    // regapi's account reads SHOW ALL SLAVES STATUS on the replica.
    const grants = services.replica.volumes!.find((volume) => volume.includes("/docker-entrypoint-initdb.d/"))!;
    const file = grants.split(":")[0];
    expect(existsSync(join(ROOT, file))).toBe(true);
    expect(read(file)).toContain(`GRANT REPLICA MONITOR ON *.* TO '${env.MARIADB_USER}'@'%'`);
  });

  it("puts HAProxy with deploy/haproxy/instances.cfg in front of exactly the instances' addresses, trusted for X-Forwarded-For", () => {
    const mount = services.haproxy.volumes!.find((volume) =>
      volume.endsWith(":/usr/local/etc/haproxy/haproxy.cfg:ro"),
    )!;
    expect(mount.split(":")[0]).toBe("./deploy/haproxy/instances.cfg");
    const cfg = read("deploy/haproxy/instances.cfg");
    const servers = [...cfg.matchAll(/^\s*server \S+ (\S+)$/gm)].map((match) => match[1]);
    const port = instances[0][1].environment!.PORT;
    expect(servers).toEqual(instances.map(([, service]) => `${addressOf(service)}:${port}`));
    const subnet = compose.networks.scale.ipam.config[0].subnet;
    expect(subnet).toBe("10.0.0.0/24");
    for (const service of Object.values(services)) expect(addressOf(service)).toMatch(/^10\.0\.0\.\d+$/);
    expect(instances[0][1].environment!.TRUST_PROXY).toBe(addressOf(services.haproxy));
    const listen = services.haproxy.environment!.REGAPI_LISTEN;
    expect(services.haproxy.ports).toEqual([`127.0.0.1:${listen.replace(/^:/, "")}:${listen.replace(/^:/, "")}`]);
  });

  it("starts app1 alone (it migrates), the others after it; none waits for the replica; each drains before Docker kills it", () => {
    for (const [name, service] of instances) {
      const after = Object.keys(service.depends_on as Record<string, unknown>);
      expect(after).not.toContain("replica");
      expect(after).toEqual(expect.arrayContaining(["primary", "redis"]));
      if (name !== "app1") expect(after).toContain("app1");
      const seconds = Number(/^(\d+)s$/.exec(service.stop_grace_period ?? "")?.[1]);
      expect(seconds * 1000).toBeGreaterThan(loadConfig(service.environment).resilience.shutdownGraceMs);
      expect(service.healthcheck!.test.join(" ")).toContain("/readyz");
    }
  });
});
