import { Command, CommanderError } from "commander";
import type { DataSource } from "typeorm";
import { packageVersion } from "../common/package-root";
import { ConfigError, loadConfig, type Config } from "../config/config";
import { DomainError } from "../domain/errors";
import { processStateOf, type ProcessState } from "../domain/process-state";
import { FixtureError } from "../fixtures/check-fixture";
import { CliError } from "./cli-error";
import { writeLine, type CliIo } from "./cli-io";
import { databaseKind, examples, type CliSession } from "./cli-session";
import { registerApiKeyCommand } from "./commands/api-key.command";
import { registerCapacityCommand } from "./commands/capacity.command";
import { registerDemoCommand } from "./commands/demo.command";
import { registerLoadCommand } from "./commands/load.command";
import { registerMigrateCommand } from "./commands/migrate.command";
import { registerOrgCommand } from "./commands/org.command";
import { registerPersonCommand } from "./commands/person.command";
import { registerRecountCommand } from "./commands/recount.command";
import { registerSeedCommand } from "./commands/seed.command";
import { registerWebhookCommand } from "./commands/webhook.command";
import { registerWorkerCommand } from "./commands/worker.command";

export interface CliOptions {
  /**
   * The database to work on. Default: the process DataSource of ormconfig.ts (built from
   * DATABASE_URL), connected on first use and closed at the end. Tests pass their own; it is
   * initialized when needed and left open.
   */
  dataSource?: DataSource;
  /**
   * The process state of an app on `dataSource` (tests running a command beside their app): key
   * changes then reach the app's account cache at once, as they do in the process that made them.
   */
  state?: ProcessState;
}

/** Runs one `regapi` command line in-process and returns the exit code. Never calls process.exit. */
export async function runCli(argv: readonly string[], io: CliIo, options: CliOptions = {}): Promise<number> {
  let ownDataSource: DataSource | undefined;
  let config: Config | undefined;
  let state: ProcessState | undefined;

  const session: CliSession = {
    io,
    async database({ requireMigrated = true } = {}) {
      let dataSource = options.dataSource;
      if (!dataSource) {
        // Imported only now: ormconfig builds the DataSource from the (validated) environment.
        ({ dataSource } = await import("../../ormconfig"));
        ownDataSource = dataSource;
      }
      if (!dataSource.isInitialized) {
        try {
          await dataSource.initialize();
        } catch (error) {
          if ((error as { code?: string }).code === "ER_BAD_DB_ERROR") {
            throw new CliError(`regapi: ${(error as Error).message}; \`regapi migrate\` creates it and its schema`);
          }
          throw error;
        }
      }
      if (requireMigrated && databaseKind(dataSource) === "mysql-family" && (await dataSource.showMigrations())) {
        throw new CliError("the database has pending migrations; run `regapi migrate` first");
      }
      return dataSource;
    },
    async state() {
      const dataSource = await this.database();
      state ??= options.state ?? processStateOf(dataSource);
      return state;
    },
    config() {
      config ??= loadConfig(io.env);
      return config;
    },
  };

  const program = buildProgram(session);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    return reportFailure(error, io);
  } finally {
    if (ownDataSource?.isInitialized) await ownDataSource.destroy();
  }
}

function buildProgram(session: CliSession): Command {
  const { io } = session;
  const program = new Command("regapi")
    .description("Administer a regapi database: schema, fixtures, demo data, API keys and bulk test data.")
    .version(packageVersion(), "-V, --version", "print the version of regapi and exit")
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .showHelpAfterError("(run npx regapi --help for usage)")
    .addHelpText(
      "after",
      examples(
        "npx regapi demo",
        "npx regapi api-key create --org 1 --user ci-bot@maple.test",
        "npx regapi migrate --help",
      ),
    )
    // The configuration is checked before any command touches the database, as at service start.
    .hook("preAction", () => {
      session.config();
    });

  registerMigrateCommand(program, session);
  registerLoadCommand(program, session);
  registerDemoCommand(program, session);
  registerOrgCommand(program, session);
  registerApiKeyCommand(program, session);
  registerSeedCommand(program, session);
  registerWebhookCommand(program, session);
  registerWorkerCommand(program, session);
  registerRecountCommand(program, session);
  registerCapacityCommand(program, session);
  registerPersonCommand(program, session);
  return program;
}

function reportFailure(error: unknown, io: CliIo): number {
  // Commander already printed its own message (usage errors) or the help text.
  if (error instanceof CommanderError) return error.exitCode;
  if (error instanceof ConfigError) {
    writeLine(io.stderr, `regapi: invalid configuration: ${error.message}`);
    return 1;
  }
  if (error instanceof FixtureError) {
    writeLine(io.stderr, `${error.path}: ${error.problem}`);
    return 1;
  }
  if (error instanceof CliError) {
    writeLine(io.stderr, error.message);
    return error.exitCode;
  }
  if (error instanceof DomainError) {
    writeLine(io.stderr, `regapi: ${error.message}`);
    return 1;
  }
  writeLine(io.stderr, `regapi: failed: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}
