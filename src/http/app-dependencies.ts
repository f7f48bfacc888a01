import type { DataSource } from "typeorm";
import type { Config } from "../config/config";
import type { ProcessState } from "../domain/process-state";
import type { Logger } from "./logger";

/**
 * What the app hands down to both transports: what it was built from (src/app.ts's AppOptions),
 * with the process state of its runtime. Its own module (not src/app.ts) so
 * that the transports, which src/app.ts mounts, do not import it back.
 */
export interface AppDependencies {
  dataSource: DataSource;
  logger: Logger;
  /** Every setting, complete: defaults are applied once, in src/config (loadConfig, configWith). */
  config: Config;
  /** What lives for the process and requests use (the runtime's, src/runtime/). */
  state: ProcessState;
}
