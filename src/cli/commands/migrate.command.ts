import type { Command } from "commander";
import { writeLine } from "../cli-io";
import { databaseKind, type CliSession } from "../cli-session";

export function registerMigrateCommand(program: Command, session: CliSession): void {
  program
    .command("migrate")
    .summary("bring the schema up to date")
    .description(
      "Bring the schema up to date: run the pending migrations on MySQL/MariaDB; on SQLite synchronize the schema from the entities.",
    )
    .action(async () => {
      const { stdout } = session.io;
      const dataSource = await session.database({ requireMigrated: false });
      if (databaseKind(dataSource) === "sqlite") {
        // The embedded database has no migrations: its schema follows the entities directly.
        await dataSource.synchronize();
        writeLine(
          stdout,
          "SQLite: the schema is synchronized from the entities (migrations are for MySQL/MariaDB); it is up to date.",
        );
        return;
      }
      const applied = await dataSource.runMigrations({ transaction: "each" });
      if (applied.length === 0) {
        writeLine(stdout, "no pending migrations; the schema is up to date");
        return;
      }
      for (const migration of applied) writeLine(stdout, `applied ${migration.name}`);
      writeLine(stdout, `${applied.length} migration(s) applied`);
    });
}
