import type { EntityManager } from "typeorm";
import { wordsTestSql } from "./person-search.data";
import { onSqlite } from "./registrations.data";
import { selectRows, type SqlFragment } from "./sql-rows";
import { keysetSql, orderBySql, type UserOrder, type UserRange } from "./user-order.data";

// The word table of the users search on MySQL/MariaDB (registration_word, kept by triggers from the
// search documents; src/migrations/1796100000000-RegistrationWords.ts): a row per word of each
// document with the registration's sort name, keyed (project, word, uid) and indexed (project,
// word, sort name, uid). The registrations with one word are a range in uid order and in name
// order, so a page of a word's matches is the first entries of the range, however common the
// word and however deep its matches lie in the name order. A searched word matches the document
// words it starts: the word itself (one range, in order) and the longer words (another range,
// which the page sorts, so it costs by how many rows the longer words have). SQLite has no word
// table: there the search walks and asks the index (src/data/user-search.data.ts).

/** The orders the word table holds its ranges in, with the index of each. */
const WORD_INDEXES = { uid: "PRIMARY", name: "IDX_registration_word_name" } as const;

/** The order is one the word table reads in order, on a database that has it. */
export const readsWordTable = (em: EntityManager, order: UserOrder): order is UserOrder & { key: "uid" | "name" } =>
  !onSqlite(em) && (order.key === "uid" || order.key === "name");

/** LIKE's pattern of the words that start with `word` (a searched word: letters, digits, `_`; `_` escaped). */
export const wordPrefixPattern = (word: string): string => `${word.replace(/_/g, "\\_")}%`;

/**
 * The first `limit` registrations of `range` whose document holds `word` or a word starting with
 * it, as (uid, sort_name) in the range's reading order, each tested by `tests` (on the table
 * registration_search) when given: per branch, the word's own range read in order and the longer
 * words' range sorted. With `tests`, each branch reads its range until `limit` pass.
 */
function wordRangeSql(
  em: EntityManager,
  groupId: number,
  word: string,
  range: UserRange & { order: UserOrder & { key: "uid" | "name" } },
  limit: number,
  tests: SqlFragment | null,
): SqlFragment {
  const { keyset, keysetParameters } = keysetSql(em, range, "w");
  const orderBy = orderBySql(range.order, range.fromEnd, "w");
  const join = tests ? " STRAIGHT_JOIN registration_search ON registration_search.uid = w.uid" : "";
  const test = tests ? ` AND ${tests.sql}` : "";
  const branch = (condition: string, parameters: unknown[]): SqlFragment => ({
    sql: `(SELECT w.uid, w.sort_name FROM registration_word w FORCE INDEX (${WORD_INDEXES[range.order.key]})${join}
            WHERE w.project_id = ? AND ${condition}${keyset}${test} ORDER BY ${orderBy} LIMIT ${limit})`,
    parameters: [groupId, ...parameters, ...keysetParameters, ...(tests?.parameters ?? [])],
  });
  const own = branch("w.word = ?", [word]);
  const longer = branch("w.word LIKE ? AND w.word > ?", [wordPrefixPattern(word), word]);
  return {
    sql: `SELECT m.uid, m.sort_name FROM (${own.sql} UNION ${longer.sql}) m
           ORDER BY ${orderBySql(range.order, range.fromEnd, "m")} LIMIT ${limit}`,
    parameters: [...own.parameters, ...longer.parameters],
  };
}

const positionOf = (row: { uid: number; sort_name: string }) => ({ uid: row.uid, name: row.sort_name });

/**
 * The uids of the first `range.limit` registrations of `range` matching every word, read from
 * the ranges of word `words[drive]` and testing the others: each branch goes on until it holds
 * a page, so it reads as far as the page's matches lie in that word's ranges.
 */
export async function wordPageUids(
  em: EntityManager,
  groupId: number,
  words: readonly string[],
  drive: number,
  range: UserRange & { order: UserOrder & { key: "uid" | "name" } },
): Promise<{ uid: number; sort_name: string }[]> {
  const limit = Math.max(0, Math.trunc(range.limit));
  if (limit === 0) return [];
  const others = words.filter((_, i) => i !== drive);
  const page = wordRangeSql(em, groupId, words[drive], range, limit, others.length > 0 ? wordsTestSql(others) : null);
  return selectRows(em, { uid: "int", sort_name: "text" }, page.sql, page.parameters);
}

/** What one word's bounded read found (wordWindowsPage). */
export interface WordWindow {
  /** The matches of every word among the window's registrations, in the reading order, at most a page. */
  matches: { uid: number; sort_name: string }[];
  /** The window held the word's whole remaining range: `matches` are all there are. */
  exhausted: boolean;
}

/**
 * For each word of `drives`, in one statement: its first `window` registrations of `range` (its
 * ranges merged in the reading order), the matches of every word among them (at most a page),
 * and whether they were all its range held. Every match holds each word, so each word's matches
 * are the page's first matches up to the end of its window: one that holds a page, or whose
 * window held its whole range, is the page.
 */
export async function wordWindowsPage(
  em: EntityManager,
  groupId: number,
  words: readonly string[],
  drives: readonly number[],
  range: UserRange & { order: UserOrder & { key: "uid" | "name" } },
  window: number,
): Promise<WordWindow[]> {
  const limit = Math.max(0, Math.trunc(range.limit));
  const size = Math.max(1, Math.trunc(window));
  const parts: SqlFragment[] = drives.flatMap((drive) => {
    const span = wordRangeSql(em, groupId, words[drive], range, size, null);
    const others = words.filter((_, i) => i !== drive);
    const tests = others.length > 0 ? wordsTestSql(others) : { sql: "1 = 1", parameters: [] };
    const order = (alias: string) => orderBySql(range.order, range.fromEnd, alias);
    return [
      {
        sql: `(SELECT ${drive} AS drive, 0 AS tail, c.uid, c.sort_name FROM (${span.sql}) c
                JOIN registration_search ON registration_search.uid = c.uid
               WHERE ${tests.sql} ORDER BY ${order("c")} LIMIT ${limit})`,
        parameters: [...span.parameters, ...tests.parameters],
      },
      {
        sql: `(SELECT ${drive} AS drive, 1 AS tail, e.uid, e.sort_name FROM (${span.sql}) e
               ORDER BY ${order("e")} LIMIT 1 OFFSET ${size - 1})`,
        parameters: span.parameters,
      },
    ];
  });
  const rows = await selectRows(
    em,
    { drive: "int", tail: "int", uid: "int", sort_name: "text" },
    parts.map((part) => part.sql).join(" UNION ALL "),
    parts.flatMap((part) => part.parameters),
  );
  return drives.map((drive) => {
    const own = rows.filter((row) => row.drive === drive);
    return {
      matches: own.filter((row) => row.tail === 0).map(({ uid, sort_name }) => ({ uid, sort_name })),
      exhausted: !own.some((row) => row.tail === 1),
    };
  });
}

/** What is left of `range` after `rows`, the first of it in its reading order: the range beyond the last of them, fewer by as many. */
export function rangeAfter<R extends UserRange>(range: R, rows: readonly { uid: number; sort_name: string }[]): R {
  const last = rows[rows.length - 1];
  const limit = range.limit - rows.length;
  if (!last) return { ...range, limit };
  return { ...range, [range.fromEnd ? "before" : "after"]: positionOf(last), limit };
}

/**
 * The registrations of project `groupId` that hold every word, as conditions on `r.uid` (one
 * semi-join on the word table per word), for a statement that also filters otherwise: the
 * optimizer reads a rare word's range first and tests a common one's.
 */
export function wordsInSql(groupId: number, words: readonly string[]): SqlFragment {
  return {
    sql: words
      .map(() => "r.uid IN (SELECT w.uid FROM registration_word w WHERE w.project_id = ? AND w.word LIKE ?)")
      .join(" AND "),
    parameters: words.flatMap((word) => [groupId, wordPrefixPattern(word)]),
  };
}
