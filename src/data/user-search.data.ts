import type { EntityManager } from "typeorm";
import {
  countIndexedMatches,
  documentUidSql,
  indexedMatchSql,
  wholeWordTestSql,
  wordsTestSql,
  wordTestSql,
} from "./person-search.data";
import { COUNTER_BUCKETS, registrationsInBucketsSql } from "./project-counters.data";
import { onSqlite } from "./registrations.data";
import { rangeAfter, readsWordTable, wordPageUids, wordWindowsPage } from "./search-words.data";
import { selectRawRows, selectRows, type SqlFragment } from "./sql-rows";
import {
  beyondSql,
  keysetSql,
  orderBySql,
  UID_ORDER,
  type UserOrder,
  type UserOrderKey,
  type UserRange,
} from "./user-order.data";

// A search alone (no other filter) at size. The full-text index gathers every document a word
// matches before it can count, order or limit anything, so it costs by how common the words are.
// Walking the documents in the page's order and testing each costs by how rare the matches are.
// A sample of the project's first documents tells which: a rare word goes to the index, a common
// one walks a bounded window and goes on past it only when the window holds less than a page; a
// count projects the sample's share of matches when counting exactly would be too dear. On
// MySQL/MariaDB a page in uid or name order reads the word table instead of walking, when the
// sample finds the words' longer words rare (src/data/search-words.data.ts). Every way matches by
// one rule: the documents hold folded text that the index and the test read alike, and the word
// table holds the documents' words (docs/graphql.md, "Search").

/** How many documents a search may read before it changes its way (tests make them small). */
export const SEARCH_WINDOWS = {
  /** Documents a page walks in uid order before it looks past them. */
  uidWalk: 2000,
  /** Registrations a page walks in a name or date order before it looks past them. */
  orderWalk: 1000,
  /** The project's first documents (uid order) in the sample. */
  countSample: 2000,
  /** The index counts or pages exactly when its rarest word matches about this many documents at most. */
  indexDocuments: 5000,
  /** A word reads the word table when its longer words (it starts them) match about this many documents at most. */
  longerWords: 5000,
  /** Registrations of each word's ranges a page of several words reads before it goes on with one word. */
  wordWindow: 1000,
};

/** The index of a users order, as the page's walk reads it. */
const ORDER_INDEXES = {
  uid: "IDX_registration_project_uid",
  applicationDate: "IDX_registration_applied",
  updatedAt: "IDX_registration_updated",
  name: "IDX_registration_name",
} as const;

const orderIndexHint = (em: EntityManager, order: UserOrder): string =>
  onSqlite(em) ? `INDEXED BY ${ORDER_INDEXES[order.key]}` : `FORCE INDEX (${ORDER_INDEXES[order.key]})`;

/** The join keyword that keeps the left table first (MySQL's STRAIGHT_JOIN, SQLite's CROSS JOIN). */
const joinFirstSql = (em: EntityManager): string => (onSqlite(em) ? "CROSS JOIN" : "STRAIGHT_JOIN");

export interface SearchSample {
  /** Documents read (the project's first, in uid order), at most SEARCH_WINDOWS.countSample. */
  examined: number;
  /** Of them, those matching every word. */
  matches: number;
  /** Of them, those matching each word. */
  perWord: number[];
  /** Of them, those holding each word itself (not only longer words it starts). */
  perWholeWord: number[];
  /** The project's registrations (its counters). */
  size: number;
}

/** The other filters of a search, as a condition on the registration `r` (with the joins it reads). */
export interface SearchBeside {
  joins: string;
  sql: string;
  parameters: unknown[];
}

/**
 * The share of matches among the project's first documents, every word's share, and the
 * project's size. With `beside`, a match must also meet that condition (the words' shares do not).
 */
export async function searchSample(
  em: EntityManager,
  groupId: number,
  words: readonly string[],
  beside: SearchBeside | null = null,
): Promise<SearchSample> {
  const every = wordsTestSql(words);
  const each = [...words.map(wordTestSql), ...words.map((word) => wholeWordTestSql(em, word))];
  const kept = beside ? `CASE WHEN ${beside.sql} THEN 1 ELSE 0 END` : "1";
  const raw = await selectRawRows(
    em,
    `SELECT COUNT(*) AS examined, COALESCE(SUM(CASE WHEN x.kept = 1 AND ${every.sql} THEN 1 ELSE 0 END), 0) AS matches,
            ${each.map((test, i) => `COALESCE(SUM(CASE WHEN ${test.sql} THEN 1 ELSE 0 END), 0) AS w${i}`).join(", ")},
            ${registrationsInBucketsSql("?", COUNTER_BUCKETS)} AS size
       FROM (SELECT r.uid, ${kept} AS kept FROM registration r ${orderIndexHint(em, UID_ORDER)} ${beside?.joins ?? ""}
              WHERE r.project_id = ? ORDER BY r.uid LIMIT ${Math.trunc(SEARCH_WINDOWS.countSample)}) x
       JOIN registration_search ON ${documentUidSql(em)} = x.uid`,
    [...every.parameters, ...each.flatMap((test) => test.parameters), groupId, ...(beside?.parameters ?? []), groupId],
  );
  const row = raw[0] ?? {};
  return {
    examined: Number(row.examined ?? 0),
    matches: Number(row.matches ?? 0),
    perWord: words.map((_, i) => Number(row[`w${i}`] ?? 0)),
    perWholeWord: words.map((_, i) => Number(row[`w${words.length + i}`] ?? 0)),
    size: Number(row.size ?? 0),
  };
}

/** The sample holds every document of the project. */
const wholeProject = (sample: SearchSample): boolean =>
  sample.examined < SEARCH_WINDOWS.countSample || sample.examined >= sample.size;

/** The word the sample finds least often, and about how many documents of the project it matches. */
function rarestWord(words: readonly string[], sample: SearchSample): { word: string; documents: number } {
  let rarest = 0;
  sample.perWord.forEach((count, i) => {
    if (count < sample.perWord[rarest]) rarest = i;
  });
  const share = sample.examined > 0 ? sample.perWord[rarest] / sample.examined : 0;
  return { word: words[rarest], documents: share * sample.size };
}

/**
 * How many registrations of project `groupId` match `words` (and the sample's other filters):
 * exact when the sample holds the whole project or when the rarest word's documents are few, which
 * `exact` counts (by default the index, for a search alone); otherwise the sample's share of
 * matches times the project's size, marked as estimated.
 */
export async function searchCount(
  em: EntityManager,
  groupId: number,
  words: readonly string[],
  sample: SearchSample,
  exact: ((rarest: string) => Promise<number>) | null = null,
): Promise<UserCount> {
  if (wholeProject(sample)) return { total: sample.matches, estimated: false };
  const rarest = rarestWord(words, sample);
  if (rarest.documents <= SEARCH_WINDOWS.indexDocuments)
    return {
      total: await (exact ?? ((word) => countIndexedMatches(em, groupId, words, word)))(rarest.word),
      estimated: false,
    };
  return { total: Math.round((sample.matches / sample.examined) * sample.size), estimated: true };
}

/**
 * The uids of a page of a search alone, in the order the page reads them (`limit` at most). When
 * the sample finds the rarest word rare, the index of that word; otherwise a walk of the order's
 * index that tests each document, bounded by a window, and when the window ends before it holds
 * `limit` matches, the index or the walk without bound, whichever the sample says reads fewer
 * documents.
 */
export async function searchPageUids(
  em: EntityManager,
  groupId: number,
  words: readonly string[],
  range: UserRange,
  sample: SearchSample,
): Promise<number[]> {
  const order = range.order ?? UID_ORDER;
  const limit = Math.max(0, Math.trunc(range.limit));
  if (limit === 0) return [];
  const { keyset, keysetParameters } = keysetSql(em, range);
  const orderBy = orderBySql(order, range.fromEnd);
  const rarest = rarestWord(words, sample);
  const byIndex = async () => {
    const match = indexedMatchSql(em, groupId, words, rarest.word);
    const rows = await selectRows(
      em,
      { uid: "int" },
      `SELECT r.uid FROM registration_search ${joinFirstSql(em)} registration r ON r.uid = ${documentUidSql(em)}
        WHERE ${match.sql} AND r.project_id = ?${keyset} ORDER BY ${orderBy} LIMIT ${limit}`,
      [...match.parameters, groupId, ...keysetParameters],
    );
    return rows.map((row) => row.uid);
  };
  if (!wholeProject(sample) && rarest.documents <= SEARCH_WINDOWS.indexDocuments) return byIndex();
  const drives = wholeProject(sample) || !readsWordTable(em, order) ? [] : drivingWords(words, sample);
  if (readsWordTable(em, order) && drives.length > 0)
    return wordTablePage(em, groupId, words, drives, { ...range, order });
  const bound = await windowBound(em, groupId, range);
  const walk = async (bounded: boolean) => {
    const tests = wordsTestSql(words);
    const beyond = bounded ? bound : null;
    const rows = await selectRows(
      em,
      { uid: "int" },
      `SELECT r.uid FROM registration r ${orderIndexHint(em, order)}
         ${joinFirstSql(em)} registration_search ON ${documentUidSql(em)} = r.uid
        WHERE r.project_id = ?${keyset}${beyond ? ` AND ${beyond.sql}` : ""} AND ${tests.sql}
        ORDER BY ${orderBy} LIMIT ${limit}`,
      [groupId, ...keysetParameters, ...(beyond?.parameters ?? []), ...tests.parameters],
    );
    return rows.map((row) => row.uid);
  };
  const walked = await walk(true);
  if (walked.length >= limit || !bound) return walked;
  // The window held less than a page: the matches are rare here, though the sample finds every
  // word common. The index costs by the rarest word's documents, the walk by how far the next
  // matches lie (the sample's share of matches says about how far).
  const walkDocuments = sample.matches > 0 ? (limit * sample.examined) / sample.matches : sample.size;
  return walkDocuments < rarest.documents ? walk(false) : byIndex();
}

/** How many words of a search read the word table at most, each in its own part of one statement. */
const MAX_DRIVES = 3;

/**
 * The words whose ranges in the word table a page can read (their indexes in `words`), rarest
 * first: those whose longer words the sample finds rare, since a word's longer words are one
 * range that is sorted rather than read in order.
 */
function drivingWords(words: readonly string[], sample: SearchSample): number[] {
  const longer = (i: number) =>
    sample.examined > 0 ? ((sample.perWord[i] - sample.perWholeWord[i]) / sample.examined) * sample.size : 0;
  return words
    .map((_, i) => i)
    .filter((i) => longer(i) <= SEARCH_WINDOWS.longerWords)
    .sort((a, b) => sample.perWord[a] - sample.perWord[b])
    .slice(0, MAX_DRIVES);
}

/**
 * A page from the word table (`drives`: the words it may read, rarest first). One word: its
 * ranges, from the page's start. Several: a bounded window of each driving word's ranges, in one
 * statement, tested for the others; a window that holds a page, or the word's whole range, is the
 * page. Otherwise the longest window's matches begin the page and the rarest word's ranges go on
 * from there without bound.
 */
async function wordTablePage(
  em: EntityManager,
  groupId: number,
  words: readonly string[],
  drives: readonly number[],
  range: UserRange & { order: UserOrder & { key: "uid" | "name" } },
): Promise<number[]> {
  if (words.length === 1) return (await wordPageUids(em, groupId, words, 0, range)).map((row) => row.uid);
  const windows = await wordWindowsPage(em, groupId, words, drives, range, SEARCH_WINDOWS.wordWindow);
  const done = windows.find((window) => window.matches.length >= range.limit || window.exhausted);
  if (done) return done.matches.slice(0, range.limit).map((row) => row.uid);
  const known = windows.reduce(
    (longest, window) => (window.matches.length > longest.length ? window.matches : longest),
    windows[0].matches,
  );
  const rest = await wordPageUids(em, groupId, words, drives[0], rangeAfter(range, known));
  return [...known, ...rest].map((row) => row.uid);
}

/**
 * Where a walk of `range`'s order stops: before the first registration beyond the window (in the
 * reading order, from the range's start), or null when the rest of the range fits in the window.
 */
async function windowBound(em: EntityManager, groupId: number, range: UserRange): Promise<SqlFragment | null> {
  const order = range.order ?? UID_ORDER;
  const { keyset, keysetParameters } = keysetSql(em, range);
  const window = order.key === "uid" ? SEARCH_WINDOWS.uidWalk : SEARCH_WINDOWS.orderWalk;
  const [end] = await selectRows(
    em,
    { uid: "int", sort_name: "text", application_date: "date", updated_at: "date" },
    `SELECT r.uid, r.sort_name, r.application_date, r.updated_at FROM registration r ${orderIndexHint(em, order)}
      WHERE r.project_id = ?${keyset} ORDER BY ${orderBySql(order, range.fromEnd)} LIMIT 1 OFFSET ${Math.trunc(window)}`,
    [groupId, ...keysetParameters],
  );
  if (!end) return null;
  const reading: UserOrder = { key: order.key, descending: order.descending !== range.fromEnd };
  const at = end[DATE_COLUMNS[order.key] ?? "updated_at"];
  return beyondSql(em, reading, { uid: end.uid, name: end.sort_name, at }, "before");
}

/** The date column of a date order, as the window's end row names it. */
const DATE_COLUMNS: Partial<Record<UserOrderKey, "application_date" | "updated_at">> = {
  applicationDate: "application_date",
  updatedAt: "updated_at",
};

/** How many users match: exact, or (estimated) a projection of a sample's share of matches. */
export interface UserCount {
  total: number;
  estimated: boolean;
}
