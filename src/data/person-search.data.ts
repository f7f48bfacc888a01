import type { EntityManager } from "typeorm";
import { searchDocumentText } from "../common/search-text";
import { executeWrite } from "../db/insert-rows";
import { chunked } from "./batch";
import { displayName } from "./summary-columns";
import { selectRows, sqlPlaceholders, type RowOf, type SqlFragment } from "./sql-rows";

// The users search and the name order. Each registration has a search document, keyed by its
// uid: the table registration_search (project_id, search_text), with a FULLTEXT index on
// MySQL/MariaDB and as an FTS5 table on SQLite (rowid = uid). Its text is the folded words
// (src/common/search-text.ts) of the person's first name, last name, username and main email,
// each after a space; the registration's sort_name is the person's
// display name in lower case (the NAME order). writeSearchDocuments is their one writer, called in
// the transaction of every write that changes those values (docs/graphql.md, "Search").
//
// A search asks the documents of one project for, every searched word, a word that starts with
// it. The words come from the domain's rule (src/domain/users/search-words.ts): letters, digits
// and underscores only, so they need no escaping in either query language.

const onSqlite = (em: EntityManager) => em.connection.options.type === "better-sqlite3";

/** The text a registration's search document holds. */
export function searchTextOf(person: PersonSearchValues): string {
  return searchDocumentText([person.firstName, person.lastName, person.username, person.mainEmail]);
}

/** The key of the NAME order: the display name (User.name) in lower case. */
export const sortNameOf = (name: string): string => name.toLowerCase();

/** What a person's search document and sort name are made of. */
export interface PersonSearchValues {
  firstName: string | null;
  lastName: string | null;
  orgName: string | null;
  username: string | null;
  mainEmail: string | null;
}

const PERSON_ROW = {
  uid: "int",
  project_id: "int",
  first_name: "textOrNull",
  last_name: "textOrNull",
  org_name: "textOrNull",
  username: "textOrNull",
  main_email: "textOrNull",
} as const;

/** What a person's values put in a search document and in the sort name. */
export function searchValuesOf(person: PersonSearchValues): { text: string; sortName: string } {
  const name = displayName({ ...person, username: person.username ?? "" });
  return { text: searchTextOf(person), sortName: sortNameOf(name) };
}

interface SearchDocument {
  uid: number;
  projectId: number;
  text: string;
}

/** A registration's document and sort name, from its person's row. */
function documentOf(row: RowOf<typeof PERSON_ROW>): SearchDocument & { sortName: string } {
  const person = {
    firstName: row.first_name,
    lastName: row.last_name,
    orgName: row.org_name,
    username: row.username,
    mainEmail: row.main_email,
  };
  return { uid: row.uid, projectId: row.project_id, ...searchValuesOf(person) };
}

/** Writes `documents`, replacing the ones there unless `fresh` (new registrations have none). */
export async function putSearchDocuments(
  em: EntityManager,
  documents: readonly SearchDocument[],
  fresh: boolean,
): Promise<void> {
  const uids = documents.map((d) => d.uid);
  const values = documents.flatMap((d) => [d.uid, d.projectId, d.text]);
  const tuples = documents.map(() => "(?, ?, ?)").join(", ");
  if (onSqlite(em)) {
    // FTS5 tables have no upsert: the old document goes first.
    if (!fresh)
      await executeWrite(em, `DELETE FROM registration_search WHERE rowid IN (${sqlPlaceholders(uids.length)})`, uids);
    await executeWrite(em, `INSERT INTO registration_search (rowid, project_id, search_text) VALUES ${tuples}`, values);
  } else {
    await executeWrite(
      em,
      `INSERT INTO registration_search (uid, project_id, search_text) VALUES ${tuples}
         ON DUPLICATE KEY UPDATE search_text = VALUES(search_text)`,
      values,
    );
  }
}

/**
 * Writes the search document and sort name of the registrations of `persons` (all of each
 * person's registrations) or of the registrations `uids`, from the persons' current values.
 * `fresh`: the registrations are new, so no document of theirs is there to replace.
 */
export async function writeSearchDocuments(
  em: EntityManager,
  of: { persons: readonly number[] } | { uids: readonly number[]; fresh?: boolean },
): Promise<void> {
  const [column, keys] = "persons" in of ? ["r.person_id", of.persons] : ["r.uid", of.uids];
  const fresh = "fresh" in of && of.fresh === true;
  await chunked(keys, async (chunk) => {
    const rows = await selectRows(
      em,
      PERSON_ROW,
      `SELECT r.uid, r.project_id, p.first_name, p.last_name, p.org_name, p.username, p.main_email
         FROM registration r JOIN person p ON p.id = r.person_id WHERE ${column} IN (${sqlPlaceholders(chunk.length)})`,
      chunk,
    );
    if (rows.length === 0) return;
    const documents = rows.map(documentOf);
    const uids = documents.map((d) => d.uid);
    await putSearchDocuments(em, documents, fresh);
    await executeWrite(
      em,
      `UPDATE registration SET sort_name = CASE uid ${documents.map(() => "WHEN ? THEN ?").join(" ")} END
        WHERE uid IN (${sqlPlaceholders(uids.length)})`,
      [...documents.flatMap((d) => [d.uid, d.sortName]), ...uids],
    );
  });
}

/** The search query of `words` in the index's own language, and its condition. */
export function matchSql(em: EntityManager, words: readonly string[]): { sql: string; parameter: string } {
  if (onSqlite(em))
    return {
      sql: "registration_search MATCH ?",
      parameter: `search_text : (${words.map((w) => `"${w}"*`).join(" AND ")})`,
    };
  return {
    sql: "MATCH (search_text) AGAINST (? IN BOOLEAN MODE)",
    parameter: words.map((word) => `+${word}*`).join(" "),
  };
}

/** The search document's uid column in a statement that names the table registration_search. */
export const documentUidSql = (em: EntityManager): string =>
  onSqlite(em) ? "registration_search.rowid" : "registration_search.uid";

/**
 * The test of a document's own text for `word`: the text holds a space and the word, which is the
 * word starting one of the document's words (the text is its folded words, each after a space),
 * as the full-text index finds it. It reads the document, so it costs for every document tested.
 */
export function wordTestSql(word: string): SqlFragment {
  return { sql: "INSTR(registration_search.search_text, ?) > 0", parameters: [` ${word}`] };
}

/**
 * The test of a document's own text for `word` as a whole word (not only the start of a longer
 * one): the text holds a space, the word and a space, once a space closes the text.
 */
export function wholeWordTestSql(em: EntityManager, word: string): SqlFragment {
  const text = onSqlite(em) ? "registration_search.search_text || ' '" : "CONCAT(registration_search.search_text, ' ')";
  return { sql: `INSTR(${text}, ?) > 0`, parameters: [` ${word} `] };
}

/** Every word's test, joined with AND. */
export function wordsTestSql(words: readonly string[]): SqlFragment {
  const tests = words.map(wordTestSql);
  return { sql: tests.map((test) => test.sql).join(" AND "), parameters: tests.flatMap((test) => test.parameters) };
}

/**
 * The documents of project `groupId` matching `words` by the full-text index for the word
 * `indexed` (one of them: the index's cost grows with how many documents each of its words
 * matches) and by the test of the text for the others.
 */
export function indexedMatchSql(
  em: EntityManager,
  groupId: number,
  words: readonly string[],
  indexed: string,
): SqlFragment {
  const match = matchSql(em, [indexed]);
  const others = words.filter((word) => word !== indexed);
  const tests = wordsTestSql(others);
  return {
    sql: `${match.sql} AND registration_search.project_id = ?${others.length > 0 ? ` AND ${tests.sql}` : ""}`,
    parameters: [match.parameter, groupId, ...tests.parameters],
  };
}

/**
 * How many documents of project `groupId` match `words`, by the index for `indexed` and the test
 * of the text for the others: exact, at a cost that grows with the documents `indexed` matches.
 */
export async function countIndexedMatches(
  em: EntityManager,
  groupId: number,
  words: readonly string[],
  indexed: string,
): Promise<number> {
  const match = indexedMatchSql(em, groupId, words, indexed);
  const [row] = await selectRows(
    em,
    { total: "int" },
    `SELECT COUNT(*) AS total FROM registration_search WHERE ${match.sql}`,
    match.parameters,
  );
  return row?.total ?? 0;
}
