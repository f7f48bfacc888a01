import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { loadConfig } from "../../src/config/config";
import { SERVER_NODE_FLAGS } from "../../src/common/heap-growth";

// No Docker engine in CI: these check the files' content, not a running stack.
const ROOT = join(__dirname, "../..");
const read = (name: string) => readFileSync(join(ROOT, name), "utf8");

interface ComposeService {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  healthcheck?: {
    test: string | string[];
    interval?: string;
    timeout?: string;
    retries?: number;
    start_period?: string;
  };
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  restart?: string;
  stop_grace_period?: string;
}

const compose = parse(read("docker-compose.yml")) as { services: Record<string, ComposeService> };
const { mysql, app } = compose.services;

describe("docker-compose.yml", () => {
  it("runs MySQL 8.4 with a root password and the regapi database", () => {
    expect(mysql.image).toBe("mysql:8.4");
    expect(mysql.environment).toMatchObject({ MYSQL_ROOT_PASSWORD: expect.any(String), MYSQL_DATABASE: "regapi" });
  });

  it("checks MySQL's health over TCP, with interval, retries and a start period", () => {
    const check = mysql.healthcheck!;
    const command = Array.isArray(check.test) ? check.test.join(" ") : check.test;
    expect(command).toMatch(/mysqladmin ping -h 127\.0\.0\.1 --protocol=tcp/);
    expect(check).toMatchObject({
      interval: expect.any(String),
      retries: expect.any(Number),
      start_period: expect.any(String),
    });
    expect(check.retries).toBeGreaterThan(1);
  });

  it("starts the app from the Dockerfile once MySQL is healthy, on port 3000", () => {
    expect(app.build).toBeDefined();
    expect(app.depends_on).toEqual({ mysql: { condition: "service_healthy" } });
    expect(app.ports).toEqual(["127.0.0.1:3000:3000"]);
    expect(app.environment).toMatchObject({ HOST: "0.0.0.0", DEMO: "false" });
  });

  it("gives the app longer than its own shutdown grace before Docker kills it", () => {
    const seconds = Number(/^(\d+)s$/.exec(app.stop_grace_period ?? "")?.[1]);
    expect(seconds * 1000).toBeGreaterThan(loadConfig({}).resilience.shutdownGraceMs);
  });

  it("publishes the app on the loopback only, like MySQL", () => {
    expect(mysql.ports!.every((port) => port.startsWith("127.0.0.1:"))).toBe(true);
    expect(app.ports!.every((port) => port.startsWith("127.0.0.1:"))).toBe(true);
  });

  it("checks the app's health on /readyz with node's fetch (the slim image has no curl)", () => {
    const check = app.healthcheck!;
    expect(Array.isArray(check.test)).toBe(true);
    const [kind, program, flag, script] = check.test as string[];
    expect([kind, program, flag]).toEqual(["CMD", "node", "-e"]);
    expect(script).toMatch(/^fetch\('http:\/\/127\.0\.0\.1:3000\/readyz'\)/);
    expect(script).toContain("process.exit(r.ok ? 0 : 1)");
    expect(check).toMatchObject({
      interval: expect.any(String),
      timeout: expect.any(String),
      start_period: expect.any(String),
    });
    expect(check.retries).toBeGreaterThan(1);
  });

  it("restarts both services unless stopped by hand", () => {
    expect(app.restart).toBe("unless-stopped");
    expect(mysql.restart).toBe("unless-stopped");
  });

  it("gives the app a configuration that passes validation and points at the mysql service", () => {
    const config = loadConfig(app.environment);
    expect(config).toMatchObject({ host: "0.0.0.0", port: 3000, demo: false });
    expect(config.database).toEqual({
      kind: "mysql",
      host: "mysql",
      port: 3306,
      user: "root",
      password: mysql.environment!.MYSQL_ROOT_PASSWORD,
      database: mysql.environment!.MYSQL_DATABASE,
    });
  });
});

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");

  it("builds on Node 20 bookworm-slim with npm install (not npm ci), compiles and runs main.js", () => {
    expect(dockerfile).toMatch(/^FROM node:20-bookworm-slim/m);
    expect(dockerfile).toMatch(/RUN npm install /);
    expect(dockerfile).not.toMatch(/^RUN .*npm ci/m);
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(dockerfile).toContain(
      `CMD ${JSON.stringify(["node", ...SERVER_NODE_FLAGS, "dist/src/main.js"]).replace(/,/g, ", ")}\n`,
    );
  });

  it("starts the server with the node flags it is measured with, as npm start does", () => {
    // V8 sizes the young generation at start-up: only a command-line flag sets it (heap-growth.ts).
    const start = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts.start;
    expect(start).toBe(`node ${SERVER_NODE_FLAGS.join(" ")} dist/src/main.js`);
  });

  it("copies everything the service reads at run time into the final image", () => {
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    for (const path of ["node_modules", "dist", "public", "package.json"]) expect(finalStage).toContain(`/app/${path}`);
  });

  it("keeps local build output, dependencies and data out of the build context", () => {
    const ignored = read(".dockerignore").split("\n");
    expect(ignored).toEqual(expect.arrayContaining([".git", "node_modules", "dist", "data"]));
  });
});
