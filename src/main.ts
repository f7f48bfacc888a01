import "reflect-metadata";
import { createServer, type Server } from "node:http";
import type { DataSource } from "typeorm";
import { ConfigError, redactUrl } from "./config/config";
import { getConfig } from "./config/runtime-config";
import { limitHeapGrowth } from "./common/heap-growth";
// Types only (erased): the modules themselves are imported once the configuration is valid.
import type { RegapiApp } from "./app";
import type { Config } from "./config/config";
import type { ResilienceConfig } from "./config/resilience-settings";
import type { trackConnections } from "./http/drain";
import type { Logger } from "./http/logger";
import type { Runtime } from "./runtime/runtime";

/** One line on stderr and exit 1: what a person starting the service needs, without a stack. */
function fail(message: string): never {
  process.stderr.write(`regapi: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  limitHeapGrowth();
  let config;
  try {
    config = getConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(`invalid configuration: ${error.message}`);
    throw error;
  }
  // Imported after the configuration is known to be valid: ormconfig builds the DataSource from it.
  const { createLogger, resolveLogFormat } = await import("./http/logger");
  const { prepareDatabase } = await import("./prepare-database");
  const { connectionFailureCause } = await import("./db/database-failure");
  const { trackConnections } = await import("./http/drain");
  const { createApp } = await import("./app");
  const { startRuntime } = await import("./runtime/runtime");

  const logger = createLogger(
    config.logLevel,
    undefined,
    resolveLogFormat(config.logFormat, process.stdout.isTTY === true),
  );
  logger.info({ database: redactUrl(config.databaseUrl) }, "starting");
  let dataSource: DataSource;
  try {
    // ormconfig builds the DataSource (creating an SQLite file's folder); both can fail as a connection does.
    ({ dataSource } = await import("../ormconfig"));
    await dataSource.initialize();
  } catch (error) {
    fail(
      `cannot connect to the database at DATABASE_URL=${redactUrl(config.databaseUrl)}: ${connectionFailureCause(error)}`,
    );
  }
  await prepareDatabase(dataSource, config, logger);
  const { ReplicaSetupError } = await import("./db/read-replicas-setup");
  let runtime;
  try {
    // Events and trigger emails are delivered from this process unless a separate `regapi worker` does it.
    runtime = await startRuntime({ dataSource, config, logger, deliveryWorker: config.delivery.workerInService });
  } catch (error) {
    if (error instanceof ReplicaSetupError) fail(error.message);
    throw error;
  }
  const regapi = await createApp({ dataSource, logger, config, runtime });

  // Not app.listen: Express 5 calls its callback on a listen error too, which would log "listening".
  // Node checks these timeouts every connectionsCheckingInterval (30 s by default): check each second.
  const server: Server = createServer({ connectionsCheckingInterval: 1000 }, regapi.app);
  const connections = trackConnections(server);
  regapi.attach(server);
  listen(server, config, logger);
  shutDownOnSignals({ connections, regapi, runtime, dataSource, limits: config.resilience, logger });
}

/** Listens on HOST:PORT; a port that cannot be had ends the start with one line. */
function listen(server: Server, config: Config, logger: Logger): void {
  server.listen(config.port, config.host);
  server.once("listening", () => {
    // The bound port, not the configured one: PORT=0 picks a free port (tests rely on it).
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    logger.info({ url: `http://${config.host}:${port}`, port }, "listening");
  });
  server.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE") fail(`port ${config.port} is in use (HOST=${config.host}); choose another PORT`);
    if (error.code === "EACCES") fail(`not allowed to listen on port ${config.port}; choose a PORT above 1023`);
    fail(`cannot listen on ${config.host}:${config.port}: ${error.message}`);
  });
  // Slow clients (headers or body trickled) cannot hold a connection for minutes.
  server.headersTimeout = config.resilience.httpHeadersTimeoutMs;
  server.requestTimeout = config.resilience.httpRequestTimeoutMs;
}

/** What a shutdown stops, in its order. */
interface Shutdown {
  connections: ReturnType<typeof trackConnections>;
  regapi: RegapiApp;
  runtime: Runtime;
  dataSource: DataSource;
  limits: ResilienceConfig;
  logger: Logger;
}

function shutDownOnSignals({ connections, regapi, runtime, dataSource, limits, logger }: Shutdown): void {
  let stopping = false;
  // Order: /readyz 503 and every answer with Connection: close → keep accepting for
  // SHUTDOWN_ACCEPT_MS (connections the kernel already accepted, and a load balancer's until it
  // takes this instance out, are served, not reset) → stop accepting once the accept queue is
  // empty → close each connection once quiet → stop Apollo → stop the runtime (worker, shared
  // state, replicas, Redis) → close the pool → exit 0.
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(
      { signal, acceptMs: limits.shutdownAcceptMs },
      "shutting down: /readyz 503, accepting for the window, finishing in-flight requests",
    );
    const force = setTimeout(() => {
      logger.error({ graceMs: limits.shutdownGraceMs }, "shutdown grace period over; exiting");
      process.exit(1);
    }, limits.shutdownGraceMs);
    force.unref();
    // The worker stops claiming at once; its sends in flight finish while connections drain.
    runtime.stopClaiming();
    regapi.drain();
    await connections.drain({
      acceptMs: limits.shutdownAcceptMs,
      idleMs: limits.shutdownIdleMs,
      // A busy process takes one waiting connection per turn of its event loop: the queue may take
      // seconds to empty. Accepting stops a second before the grace period ends at the latest.
      acceptAtMostMs: limits.shutdownGraceMs - 1000,
    });
    await regapi.stop();
    // The worker's sends in flight, shared state, replicas, Redis: src/runtime/runtime.ts's order.
    await runtime.stop();
    await dataSource.destroy();
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(`regapi: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
