import mysql2 from "mysql2";
import { DataSource } from "typeorm";
import { missingDriverInternals } from "../../src/db/driver-internals";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const versionOf = (name: string) =>
  (JSON.parse(readFileSync(join(__dirname, "../../node_modules", name, "package.json"), "utf8")) as { version: string })
    .version;

// The members of TypeORM's MySQL driver and of mysql2's pool that src/db/driver-internals.ts
// reaches (they are not published): an upgrade that renames one fails here, naming it, instead of
// somewhere deep in the pooled reads, the commit positions, the replica leases or the metrics.

describe("driver internals of the installed TypeORM and mysql2", () => {
  it("are all present", () => {
    const missing = missingDriverInternals(
      () => new DataSource({ type: "mariadb", host: "127.0.0.1", port: 1, driver: mysql2 }),
    );
    const installed = `typeorm ${versionOf("typeorm")}, mysql2 ${versionOf("mysql2")}`;
    expect({ installed, missing }).toEqual({ installed, missing: [] });
  });

  it("names what is missing when a member is gone", () => {
    const missing = missingDriverInternals(() => {
      const dataSource = new DataSource({ type: "mariadb", host: "127.0.0.1", port: 1, driver: mysql2 });
      Object.defineProperty(dataSource.driver, "obtainMasterConnection", { value: undefined });
      return dataSource;
    });
    expect(missing).toEqual(["TypeORM MysqlDriver.obtainMasterConnection()"]);
  });
});
