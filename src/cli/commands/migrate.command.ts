import type { Command } from "commander";
import { createDatabaseIfMissing, DatabaseNotCreatable } from "../../db/create-database";
import { CliError } from "../cli-error";
import { writeLine } from "../cli-io";
import { databaseKind, type CliSession, examples } from "../cli-session";

export function registerMigrateCommand(program: Command, session: CliSession): void {
  program
    .command("migrate")
    .summary("bring the schema up to date")
    .addHelpText(
      "after",
      examples("npx regapi migrate", "DATABASE_URL=mariadb://regapi:secret@127.0.0.1:3306/regapi npx regapi migrate"),
    )
    .description(
      "Bring the schema up to date: run the pending migrations on MySQL/MariaDB, first creating the database of DATABASE_URL (utf8mb4) when it does not exist; on SQLite synchronize the schema from the entities.",
    )
    .action(async () => {
      const { stdout } = session.io;
      const { database, databaseConnection } = session.config();
      if (database.kind !== "sqlite") {
        try {
          if (await createDatabaseIfMissing(database, databaseConnection))
            writeLine(stdout, `created database ${database.database} at ${database.host}:${database.port} (utf8mb4)`);
        } catch (error) {
          if (error instanceof DatabaseNotCreatable) throw new CliError(`regapi: ${error.message}`);
          throw error;
        }
      }
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
