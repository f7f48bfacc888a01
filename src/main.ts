import "reflect-metadata";
import type { Server } from "node:http";
import { ConfigError, redactUrl } from "./config/config";
import { getConfig } from "./config/runtime-config";

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config;
  try {
    config = getConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`regapi: invalid configuration: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  // Imported after the configuration is known to be valid: ormconfig builds the DataSource from it.
  const { createLogger, resolveLogFormat } = await import("./http/logger");
  const { dataSource } = await import("../ormconfig");
  const { prepareDatabase } = await import("./db/bootstrap");
  const { createApp } = await import("./app");

  const logger = createLogger(
    config.logLevel,
    undefined,
    resolveLogFormat(config.logFormat, process.stdout.isTTY === true),
  );
  logger.info({ database: redactUrl(config.databaseUrl) }, "starting");
  await prepareDatabase(dataSource, config, logger);
  const regapi = await createApp({ dataSource, logger, config });

  const server: Server = regapi.app.listen(config.port, config.host, () => {
    // The bound port, not the configured one: PORT=0 picks a free port (tests rely on it).
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    logger.info({ url: `http://${config.host}:${port}`, port }, "listening");
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: no new connections, finishing in-flight requests");
    const force = setTimeout(() => {
      logger.error("shutdown grace period over; exiting");
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    await regapi.stop();
    // A keep-alive connection becomes idle once its in-flight request is answered; close it then
    // rather than after the keep-alive timeout (5 s).
    const closeIdle = setInterval(() => server.closeIdleConnections(), 100);
    closeIdle.unref();
    server.close(async () => {
      clearInterval(closeIdle);
      await dataSource.destroy();
      logger.info("stopped");
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(`regapi: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
