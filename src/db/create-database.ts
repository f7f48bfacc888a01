import mysql from "mysql2/promise";
import type { DatabaseConfig, DatabaseConnectionConfig } from "../config/config";
import { tlsOptions } from "./data-source-options";

type MysqlFamilyDatabase = Exclude<DatabaseConfig, { kind: "sqlite" }>;

/** Why the database of DATABASE_URL could not be made ready; the message says what to do. */
export class DatabaseNotCreatable extends Error {}

const ER_DBACCESS_DENIED_ERROR = 1044;
const ER_BAD_DB_ERROR = 1049;

/**
 * Makes sure the database DATABASE_URL names exists on its MySQL/MariaDB server, creating it
 * (utf8mb4, as the migrations expect) when the server says it does not. Connects without a
 * database for that, with the same account, TLS and connect timeout as the service. Returns
 * whether it created the database.
 *
 * The server answers "unknown database" only to an account that may see every database; an
 * account limited to some databases is told "access denied" for one that is missing as for one it
 * may not use, so that answer is explained rather than guessed at.
 */
export async function createDatabaseIfMissing(
  database: MysqlFamilyDatabase,
  connection: DatabaseConnectionConfig,
): Promise<boolean> {
  const where = `${database.host}:${database.port}`;
  const account = `"${database.user}"`;
  const name = `\`${database.database.replace(/`/g, "``")}\``;
  const askAnAdministrator =
    `ask an administrator to run: CREATE DATABASE ${name} CHARACTER SET utf8mb4; ` +
    `GRANT ALL PRIVILEGES ON ${name}.* TO '${database.user}'@'<its host>'; ` +
    "or point DATABASE_URL at a database that exists";
  const server = await mysql.createConnection({
    host: database.host,
    port: database.port,
    user: database.user,
    password: database.password,
    connectTimeout: connection.connectTimeoutMs,
    ssl: tlsOptions(connection),
  });
  try {
    try {
      await server.query(`USE ${name}`);
      return false;
    } catch (error) {
      const errno = (error as { errno?: number }).errno;
      if (errno === ER_DBACCESS_DENIED_ERROR) {
        throw new DatabaseNotCreatable(
          `database ${name} at ${where}: the account ${account} may not use it (it is missing, or the account ` +
            `has no privileges on it), so regapi migrate cannot create it; ${askAnAdministrator}`,
        );
      }
      if (errno !== ER_BAD_DB_ERROR) throw error;
    }
    try {
      await server.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
    } catch (error) {
      const { errno, message } = error as { errno?: number; message: string };
      if (errno !== ER_DBACCESS_DENIED_ERROR) throw error;
      throw new DatabaseNotCreatable(
        `database ${name} does not exist at ${where}, and the account ${account} may not create it ` +
          `(${message}); ${askAnAdministrator}`,
      );
    }
    return true;
  } finally {
    await server.end();
  }
}
