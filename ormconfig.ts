import "reflect-metadata";
import { DataSource } from "typeorm";
import { getConfig } from "./src/config/runtime-config";
import { buildDataSourceOptions } from "./src/db/data-source-options";

/**
 * The one DataSource of a running process, built from the validated configuration. The app, the
 * `regapi` CLI and the TypeORM CLI (`typeorm -d dist/ormconfig.js`) all use it. Tests build their
 * own from TEST_DATABASE_URL with the same options function.
 */
export const dataSource = new DataSource(
  buildDataSourceOptions(getConfig().database, { limits: getConfig().resilience }),
);
