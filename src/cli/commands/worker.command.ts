import type { Command } from "commander";
import { createLogger, resolveLogFormat } from "../../http/logger";
import { logTransactionReruns } from "../../http/rerun-log";
import { startRuntime } from "../../runtime/runtime";
import { type CliSession, examples } from "../cli-session";

/**
 * `regapi worker`: the delivery worker as a process of its own (run the service with
 * DELIVERY_WORKER=off then), started through the runtime as the service starts its own: it only
 * delivers, so neither replicas nor shared state. SIGTERM/SIGINT stop claiming and wait for the
 * sends in flight.
 */
export function registerWorkerCommand(program: Command, session: CliSession): void {
  program
    .command("worker")
    .summary("deliver webhooks and trigger emails until stopped")
    .addHelpText(
      "after",
      examples(
        "npx regapi worker",
        "DELIVERY_WORKER=false npm start   # the service without its own worker, then: npx regapi worker",
      ),
    )
    .description(
      "Run the delivery worker alone: fan events out to webhook endpoints, send due deliveries and queued trigger emails, retry with backoff. Several may run against one MySQL/MariaDB database. Stops cleanly on SIGTERM or SIGINT.",
    )
    .action(async () => {
      const config = session.config();
      const dataSource = await session.database();
      const logger = createLogger(config.logLevel, undefined, resolveLogFormat(config.logFormat, false));
      const runtime = await startRuntime({ dataSource, config, logger, deliveryWorker: true, servesRequests: false });
      logTransactionReruns(runtime.state.reruns, logger);
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          logger.info({ signal }, "stopping the delivery worker: finishing deliveries in flight");
          resolve();
        };
        process.once("SIGTERM", () => stop("SIGTERM"));
        process.once("SIGINT", () => stop("SIGINT"));
      });
      await runtime.stop();
    });
}
