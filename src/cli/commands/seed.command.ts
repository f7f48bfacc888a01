import { Presets, SingleBar } from "cli-progress";
import type { Command } from "commander";
import { analyzeBulkTables } from "../../data/table-statistics.data";
import { writeLine, type CliStream } from "../cli-io";
import { positiveInteger, type CliSession, examples } from "../cli-session";
import { CliError } from "../cli-error";
import {
  DEFAULT_SEED_BATCH,
  MAX_SEED_BATCH,
  SEED_PASSWORD,
  SeedInterruptedError,
  seedRegistrants,
  type SeedResult,
} from "../seed/seed-registrants";

export function registerSeedCommand(program: Command, session: CliSession): void {
  program
    .command("seed")
    .summary("bulk synthetic registrants in a project (multi-row inserts)")
    .addHelpText("after", examples("npx regapi seed --group 100909072 --users 10000"))
    .description(
      "Bulk synthetic registrants in an existing project (persons, registrations, initial forms with some completed, " +
        "field values, statuses, tags, cart lines and payments), written with multi-row inserts. Each chunk of " +
        `--batch registrants is its own transaction: an interrupted run leaves whole chunks only. Seeded persons ` +
        `share the password "${SEED_PASSWORD}".`,
    )
    .requiredOption("--group <id>", "project (group_id) to fill", positiveInteger())
    .requiredOption("--users <n>", "number of registrants to create", positiveInteger(10_000_000))
    .option(
      "--batch <n>",
      `registrants per chunk/transaction (max ${MAX_SEED_BATCH})`,
      positiveInteger(MAX_SEED_BATCH),
      DEFAULT_SEED_BATCH,
    )
    .action(async (options: { group: number; users: number; batch: number }) => {
      const dataSource = await session.database();
      const { stdout, stderr } = session.io;
      const bar = stderr.isTTY ? progressBar(stderr, options.users) : undefined;
      const started = process.hrtime.bigint();
      let result: SeedResult;
      try {
        result = await seedRegistrants(await session.state(), {
          groupId: options.group,
          users: options.users,
          batchSize: options.batch,
          onChunk: (seeded) => bar?.update(seeded),
        });
      } catch (error) {
        if (error instanceof SeedInterruptedError)
          throw new CliError(`regapi: ${error.message}; usernames ${error.committed.usernamePrefix}<n>@seed.test`);
        throw error;
      } finally {
        bar?.stop();
      }
      // A million new rows leave MariaDB planning with the statistics of a nearly empty table
      // (the meta_info children count then walks the project) until it refreshes them itself.
      await analyzeBulkTables(dataSource.manager);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      writeLine(stdout, summaryLine(result, seconds));
    });
}

function progressBar(stream: CliStream, total: number): SingleBar {
  const bar = new SingleBar(
    {
      stream: stream as NodeJS.WritableStream,
      format: "seeding [{bar}] {percentage}% | {value}/{total} registrants | ETA {eta_formatted}",
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return bar;
}

export function summaryLine(result: SeedResult, seconds: number): string {
  const rows =
    result.persons +
    result.registrations +
    result.forms +
    result.values +
    result.tags +
    result.cartLines +
    result.payments;
  const perSecond = (n: number) => Math.round(n / Math.max(seconds, 0.001));
  return (
    `seeded ${result.registrations} registrants in ${seconds.toFixed(1)} s (${perSecond(result.registrations)}/s; ` +
    `${rows} rows, ${perSecond(rows)} rows/s): ${result.persons} persons, ${result.registrations} registrations, ` +
    `${result.forms} forms (${result.completedForms} completed), ${result.values} field values, ${result.tags} tags, ` +
    `${result.cartLines} cart lines, ${result.payments} payments; usernames ${result.usernamePrefix}<n>@seed.test`
  );
}
