import { InvalidArgumentError } from "commander";
import type { DataSource } from "typeorm";
import type { Config } from "../config/config";
import { createRequestContext, domainSettingsOf, type RequestContext } from "../domain/context";
import type { ProcessState } from "../domain/process-state";
import type { CliIo } from "./cli-io";

export type DatabaseKind = "sqlite" | "mysql-family";

/** What a command gets: where to write and the database on demand. */
export interface CliSession {
  readonly io: CliIo;
  /**
   * The DataSource, initialized. By default a command refuses to run on a MySQL/MariaDB database
   * with pending migrations (`regapi migrate` brings it up to date).
   */
  database(options?: { requireMigrated?: boolean }): Promise<DataSource>;
  /** The process state every context of this run shares (made once, on `database()`). */
  state(): Promise<ProcessState>;
  /** The validated configuration of this run (checked before any command runs). */
  config(): Config;
}

/**
 * The request context of a command acting for an organization: the operator, with the full access
 * of the organization's unscoped API account (no account of its own: apiAccountId 0).
 */
export async function operatorContext(
  session: CliSession,
  requestId: string,
  organizationId: number,
): Promise<RequestContext> {
  return createRequestContext(
    await session.state(),
    requestId,
    { apiAccountId: 0, apiUser: "regapi-cli", organizationId },
    { settings: domainSettingsOf(session.config()) },
  );
}

export function databaseKind(dataSource: DataSource): DatabaseKind {
  return dataSource.options.type === "better-sqlite3" ? "sqlite" : "mysql-family";
}

/** Commander argument parser for ids and counts: a positive integer up to `max`, else a usage error. */
export const positiveInteger =
  (max = 2_147_483_647) =>
  (raw: string): number => {
    if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || Number(raw) > max) {
      throw new InvalidArgumentError(`expected an integer from 1 to ${max}.`);
    }
    return Number(raw);
  };

/** Rows as left-aligned columns under a header, two spaces apart. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** The "Examples:" section every command's --help ends with: whole command lines, as a user types them. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join("\n")}\n`;
}
