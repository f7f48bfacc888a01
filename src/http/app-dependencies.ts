import type { DataSource } from "typeorm";
import type { Config } from "../config/config";
import type { Runtime } from "../runtime/runtime";
import type { Logger } from "./logger";

/**
 * What the app is built from, handed down to both transports. Its own module (not src/app.ts) so
 * that the transports, which src/app.ts mounts, do not import it back.
 */
export interface AppDependencies {
  dataSource: DataSource;
  logger: Logger;
  /** Every setting, complete: defaults are applied once, in src/config (loadConfig, configWith). */
  config: Config;
  /** What lives for the process (src/runtime/); absent: the app starts its own, without the delivery worker. */
  runtime?: Runtime;
}
