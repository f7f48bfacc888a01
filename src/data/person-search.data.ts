import type { EntityManager } from "typeorm";
import { onSqlite } from "./registrations.data";

// The users search's SQL: MySQL/MariaDB's FULLTEXT index on person (IDX_person_search) or
// SQLite's FTS5 table person_search, asked for persons having, for every searched word, a word
// that starts with it. The words come from the domain's rule (src/domain/users/search-words.ts):
// letters, digits and underscores only, so they need no escaping in either query language.

/**
 * A condition on `personIdColumn` (e.g. `r.person_id`) selecting the persons whose first name,
 * last name, username or main email has a word starting with each of `words`.
 */
export function personSearchSql(
  em: EntityManager,
  personIdColumn: string,
  words: readonly string[],
): { sql: string; parameters: string[] } {
  if (onSqlite(em)) {
    return {
      sql: `${personIdColumn} IN (SELECT rowid FROM person_search WHERE person_search MATCH ?)`,
      parameters: [words.map((word) => `"${word}"*`).join(" AND ")],
    };
  }
  return {
    sql: `${personIdColumn} IN (SELECT ps.id FROM person ps WHERE MATCH (ps.first_name, ps.last_name, ps.username, ps.main_email) AGAINST (? IN BOOLEAN MODE))`,
    parameters: [words.map((word) => `+${word}*`).join(" ")],
  };
}
