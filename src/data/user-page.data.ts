import { sqlDate } from "./events.data";
import type { EntityManager } from "typeorm";
import { COUNTER_BUCKETS, registrationsInBucketsSql, type CounterBucket } from "./project-counters.data";
import { countIndexedMatches, documentUidSql, indexedMatchSql, wordsTestSql, wordTestSql } from "./person-search.data";
import { onSqlite } from "./registrations.data";
import { selectRawRows, selectRows, sqlPlaceholders } from "./sql-rows";
import { statusExcludedSql } from "./statuses.data";
import {
  decodeSummaries,
  summaryJoinsSql,
  summarySelectSql,
  type SummaryMembers,
  type UserSummary,
} from "./user-projection";

// Pages of a project's users (keyset ranges, filters) with their summaries, and how many match.

/** Which users of a project a list selects. Absent members do not filter. */
export interface UserListFilter {
  /** A status id; 0 selects users without a status (as the legacy `status_id` "0"). */
  statusId?: number | null;
  /** true: only users whose status is excluding; false: only the others. */
  excluded?: boolean | null;
  /** `parent`: parents and individuals (no connected_to); `child`: children of a family project. */
  level?: "parent" | "child" | null;
  /** Words each of which must start a word of the first name, last name, username or main email (src/domain/users/search-words.ts). */
  searchWords?: readonly string[] | null;
  /** Only registrations changed at or after this time (their updated_at). */
  updatedSince?: Date | null;
  /** Only registrations carrying this tag. */
  tagId?: number | null;
}

const searches = (filter: UserListFilter): filter is UserListFilter & { searchWords: readonly string[] } =>
  (filter.searchWords?.length ?? 0) > 0;

/** The filter searches and does nothing else: the search documents alone can answer it. */
const searchesOnly = (filter: UserListFilter): filter is UserListFilter & { searchWords: readonly string[] } =>
  searches(filter) &&
  filter.statusId == null &&
  filter.excluded == null &&
  filter.level == null &&
  filter.updatedSince == null &&
  filter.tagId == null;

function filterSql(
  em: EntityManager,
  groupId: number,
  filter: UserListFilter,
  searchUids: readonly number[] | null = null,
): { where: string; parameters: unknown[] } {
  const conditions = ["r.project_id = ?"];
  const parameters: unknown[] = [groupId];
  if (filter.updatedSince) {
    conditions.push("r.updated_at >= ?");
    parameters.push(sqlDate(em, filter.updatedSince));
  }
  if (filter.statusId === 0) conditions.push("r.status_id IS NULL");
  else if (filter.statusId != null) {
    conditions.push("r.status_id = ?");
    parameters.push(filter.statusId);
  }
  if (filter.excluded != null) conditions.push(statusExcludedSql("s", filter.excluded));
  if (filter.tagId != null) {
    conditions.push("EXISTS (SELECT 1 FROM registration_tag ft WHERE ft.registration_id = r.uid AND ft.tag_id = ?)");
    parameters.push(filter.tagId);
  }
  if (filter.level === "parent") conditions.push("r.connected_to IS NULL");
  if (filter.level === "child") conditions.push("r.connected_to IS NOT NULL");
  if (searchUids) {
    conditions.push(searchUids.length > 0 ? `r.uid IN (${sqlPlaceholders(searchUids.length)})` : "1 = 0");
    parameters.push(...searchUids);
  } else if (searches(filter)) {
    const match = indexedMatchSql(em, groupId, filter.searchWords, filter.searchWords[0]);
    conditions.push(`r.uid IN (SELECT ${documentUidSql(em)} FROM registration_search WHERE ${match.sql})`);
    parameters.push(...match.parameters);
  }
  return { where: conditions.join(" AND "), parameters };
}

/**
 * What a users page can be ordered by, declared once (the GraphQL enum and the cursors name each):
 * the uid, a date of the registration or the name (sort_name, User.name in lower case), the
 * uid breaking ties.
 */
export const USER_ORDER_KEYS = ["uid", "applicationDate", "updatedAt", "name"] as const;

export type UserOrderKey = (typeof USER_ORDER_KEYS)[number];

export interface UserOrder {
  key: UserOrderKey;
  descending: boolean;
}

export const UID_ORDER: UserOrder = { key: "uid", descending: false };

/** The column of an order other than uid's; each has an index (project_id, <column>, uid) the page reads in order. */
const ORDER_COLUMNS = {
  applicationDate: "r.application_date",
  updatedAt: "r.updated_at",
  name: "r.sort_name",
} as const;

/** A user's place in an order: its uid, and the order's date or sort name when the order is by one. */
export interface UserPosition {
  uid: number;
  at?: Date;
  name?: string;
}

/**
 * Where a keyset page lies: strictly between the two positions of its order (either may be open),
 * read from one end.
 */
export interface UserRange {
  after: UserPosition | null;
  before: UserPosition | null;
  limit: number;
  /** true: the `limit` users nearest `before` (backward paging); false: nearest `after`. */
  fromEnd: boolean;
  /** Absent: uid order. */
  order?: UserOrder;
}

/** `r.uid`'s side of a position, and the order column's before it (a tie on it goes by uid). */
function beyondSql(
  em: EntityManager,
  order: UserOrder,
  position: UserPosition,
  side: "after" | "before",
): { sql: string; parameters: unknown[] } {
  const greater = (side === "after") !== order.descending;
  const op = greater ? ">" : "<";
  if (order.key === "uid") return { sql: `r.uid ${op} ?`, parameters: [position.uid] };
  const column = ORDER_COLUMNS[order.key];
  const value = order.key === "name" ? position.name : position.at && sqlDate(em, position.at);
  if (value === undefined)
    throw new Error(`a position in ${order.key} order needs its ${order.key === "name" ? "name" : "date"}`);
  return { sql: `(${column} ${op} ? OR (${column} = ? AND r.uid ${op} ?))`, parameters: [value, value, position.uid] };
}

function keysetSql(em: EntityManager, range: UserRange): { keyset: string; keysetParameters: unknown[] } {
  const order = range.order ?? UID_ORDER;
  let keyset = "";
  const keysetParameters: unknown[] = [];
  for (const side of ["after", "before"] as const) {
    const position = range[side];
    if (position == null) continue;
    const beyond = beyondSql(em, order, position, side);
    keyset += ` AND ${beyond.sql}`;
    keysetParameters.push(...beyond.parameters);
  }
  return { keyset, keysetParameters };
}

/** The ORDER BY of a page read in `order`, from its start or (fromEnd) from its end. */
function orderBySql(order: UserOrder, fromEnd: boolean): string {
  const direction = order.descending !== fromEnd ? "DESC" : "ASC";
  return order.key === "uid" ? `r.uid ${direction}` : `${ORDER_COLUMNS[order.key]} ${direction}, r.uid ${direction}`;
}

/** How many users match: exact, or (estimated) a projection of a window's share of matches. */
export interface UserCount {
  total: number;
  estimated: boolean;
}

/**
 * How many users of a project match the filter. A filter that only searches is counted from a
 * sample of the project's documents (searchCount).
 */
export async function countUsers(em: EntityManager, groupId: number, filter: UserListFilter): Promise<UserCount> {
  if (searchesOnly(filter))
    return searchCount(em, groupId, filter.searchWords, await searchSample(em, groupId, filter.searchWords));
  const { where, parameters } = filterSql(em, groupId, filter);
  // The status is joined only when the filter reads it: a count by status, by updatedSince or by
  // search then reads the registration's own indexes, not a million joined rows.
  const from = `FROM registration r${filter.excluded != null ? " LEFT JOIN status s ON s.id = r.status_id" : ""}`;
  const [row] = await selectRows(em, { total: "int" }, `SELECT COUNT(*) AS total ${from} WHERE ${where}`, parameters);
  return { total: row?.total ?? 0, estimated: false };
}

/**
 * The index a users page reads on MySQL/MariaDB. Without a status filter the page is the
 * project's registrations in uid order, which (project_id, uid) holds in that order: the page
 * reads `limit` entries of it. Left to statistics, the optimizer may walk the primary key through
 * other projects' rows or sort the whole project instead, and flips between them as the
 * statistics change (plans that do not depend on statistics; see query-plans.test.ts).
 * A status filter has its own (project_id, status_id) index, also in uid order.
 */
const pageIndexHint = (em: EntityManager, filter: UserListFilter, order: UserOrder): string => {
  if (filter.statusId != null || searches(filter)) return "";
  if (order.key === "applicationDate")
    return onSqlite(em) ? "INDEXED BY IDX_registration_applied" : "FORCE INDEX (IDX_registration_applied)";
  if (order.key === "updatedAt")
    return onSqlite(em) ? "INDEXED BY IDX_registration_updated" : "FORCE INDEX (IDX_registration_updated)";
  if (order.key === "name")
    return onSqlite(em) ? "INDEXED BY IDX_registration_name" : "FORCE INDEX (IDX_registration_name)";
  // SQLite would read an updatedSince page off (project_id, updated_at) and sort every match by
  // uid, summaries and all (seconds at 1M); the uid index reads a page's worth.
  if (onSqlite(em)) return filter.updatedSince ? "INDEXED BY IDX_registration_project_uid" : "";
  return "FORCE INDEX (IDX_registration_project_uid)";
};

/** Compares two summaries in a uid or date `order` (ascending order's sign; the uid breaks ties). */
function comparatorOf(
  order: UserOrder & { key: "uid" | "applicationDate" | "updatedAt" },
): (a: UserSummary, b: UserSummary) => number {
  const sign = order.descending ? -1 : 1;
  if (order.key === "uid") return (a, b) => sign * (a.uid - b.uid);
  const key = order.key;
  return (a, b) => sign * (a[key].getTime() - b[key].getTime() || a.uid - b.uid);
}

/**
 * The rows in the page's order. They mostly come in it already (or reversed, when read from the
 * end), which a scan finds without the sort's copy and comparator calls. Names compare by the
 * database's collation, which only the database knows: a name page is the statement's order,
 * reversed when read from the end.
 */
function inPageOrder(rows: UserSummary[], order: UserOrder, fromEnd: boolean): UserSummary[] {
  if (order.key === "name") return fromEnd ? rows.reverse() : rows;
  const compare = comparatorOf({ ...order, key: order.key });
  let ascending = true;
  let descending = true;
  for (let i = 1; i < rows.length; i++) {
    if (compare(rows[i - 1], rows[i]) < 0) descending = false;
    else ascending = false;
  }
  if (ascending) return rows;
  return descending ? rows.reverse() : rows.sort(compare);
}

// A search alone (no other filter) at size. The full-text index gathers every document a word
// matches before it can count, order or limit anything, so it costs by how common the words are
// (seconds for a word in 7 % of a million documents). Walking the documents in the page's order
// and testing each costs by how rare the matches are. A page therefore walks a bounded window
// first and goes to the index only when the window holds less than a page; a count projects a
// window's share of matches when counting exactly would be too dear. Both ways match by one rule:
// the documents hold folded text that the index and the test read alike.

/** How many documents a search may read before it changes its way (tests make them small). */
export const SEARCH_WINDOWS = {
  /** Documents a page walks in uid order before it asks the index instead. */
  uidWalk: 2000,
  /** Registrations a page walks in a name or date order before it asks the index instead. */
  orderWalk: 1000,
  /** The project's first documents (uid order) whose share of matches a count projects. */
  countSample: 2000,
  /** The index counts or pages exactly when its rarest word matches about this many documents at most. */
  indexDocuments: 5000,
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

interface SearchSample {
  /** Documents read (the project's first, in uid order), at most SEARCH_WINDOWS.countSample. */
  examined: number;
  /** Of them, those matching every word. */
  matches: number;
  /** Of them, those matching each word. */
  perWord: number[];
  /** The project's registrations (its counters). */
  size: number;
}

/** The share of matches among the project's first documents, every word's share, and the project's size. */
async function searchSample(em: EntityManager, groupId: number, words: readonly string[]): Promise<SearchSample> {
  const every = wordsTestSql(words);
  const each = words.map(wordTestSql);
  const raw = await selectRawRows(
    em,
    `SELECT COUNT(*) AS examined, COALESCE(SUM(CASE WHEN ${every.sql} THEN 1 ELSE 0 END), 0) AS matches,
            ${each.map((test, i) => `COALESCE(SUM(CASE WHEN ${test.sql} THEN 1 ELSE 0 END), 0) AS w${i}`).join(", ")},
            ${registrationsInBucketsSql("?", COUNTER_BUCKETS)} AS size
       FROM (SELECT r.uid FROM registration r ${orderIndexHint(em, UID_ORDER)}
              WHERE r.project_id = ? ORDER BY r.uid LIMIT ${Math.trunc(SEARCH_WINDOWS.countSample)}) x
       JOIN registration_search ON ${documentUidSql(em)} = x.uid`,
    [...every.parameters, ...each.flatMap((test) => test.parameters), groupId, groupId],
  );
  const row = raw[0] ?? {};
  return {
    examined: Number(row.examined ?? 0),
    matches: Number(row.matches ?? 0),
    perWord: words.map((_, i) => Number(row[`w${i}`] ?? 0)),
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
 * How many registrations of project `groupId` match `words`: exact when the sample holds the whole
 * project or when the index can count the rarest word's documents cheaply; otherwise the sample's
 * share of matches times the project's size, marked as estimated.
 */
async function searchCount(
  em: EntityManager,
  groupId: number,
  words: readonly string[],
  sample: SearchSample,
): Promise<UserCount> {
  if (wholeProject(sample)) return { total: sample.matches, estimated: false };
  const rarest = rarestWord(words, sample);
  if (rarest.documents <= SEARCH_WINDOWS.indexDocuments)
    return { total: await countIndexedMatches(em, groupId, words, rarest.word), estimated: false };
  return { total: Math.round((sample.matches / sample.examined) * sample.size), estimated: true };
}

/**
 * The uids of a page of a search alone, in the order the page reads them (`limit` at most). When
 * the sample finds the rarest word rare, the index of that word; otherwise a walk of the order's
 * index that tests each document, bounded by a window, and when the window ends before it holds
 * `limit` matches, the index or the walk without bound, whichever the sample says reads fewer
 * documents.
 */
async function searchPageUids(
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
  const window = order.key === "uid" ? SEARCH_WINDOWS.uidWalk : SEARCH_WINDOWS.orderWalk;
  // The first registration beyond the window, in the reading order: the walk stops before it.
  const [end] = await selectRows(
    em,
    { uid: "int", sort_name: "text", application_date: "date", updated_at: "date" },
    `SELECT r.uid, r.sort_name, r.application_date, r.updated_at FROM registration r ${orderIndexHint(em, order)}
      WHERE r.project_id = ?${keyset} ORDER BY ${orderBy} LIMIT 1 OFFSET ${Math.trunc(window)}`,
    [groupId, ...keysetParameters],
  );
  const reading: UserOrder = { key: order.key, descending: order.descending !== range.fromEnd };
  const bound = end
    ? beyondSql(
        em,
        reading,
        { uid: end.uid, name: end.sort_name, at: end[DATE_COLUMNS[order.key] ?? "updated_at"] },
        "before",
      )
    : null;
  const walk = async (bounded: boolean) => {
    const tests = wordsTestSql(words);
    const rows = await selectRows(
      em,
      { uid: "int" },
      `SELECT r.uid FROM registration r ${orderIndexHint(em, order)}
         ${joinFirstSql(em)} registration_search ON ${documentUidSql(em)} = r.uid
        WHERE r.project_id = ?${keyset}${bounded && bound ? ` AND ${bound.sql}` : ""} AND ${tests.sql}
        ORDER BY ${orderBy} LIMIT ${limit}`,
      [groupId, ...keysetParameters, ...(bounded && bound ? bound.parameters : []), ...tests.parameters],
    );
    return rows.map((row) => row.uid);
  };
  const walked = await walk(true);
  if (walked.length >= limit || !end) return walked;
  // The window held less than a page: the matches are rare here, though the sample finds every
  // word common. The index costs by the rarest word's documents, the walk by how far the next
  // matches lie (the sample's share of matches says about how far).
  const walkDocuments = sample.matches > 0 ? (limit * sample.examined) / sample.matches : sample.size;
  return walkDocuments < rarest.documents ? walk(false) : byIndex();
}

/** The date column of a date order, as the window's end row names it. */
const DATE_COLUMNS: Partial<Record<UserOrderKey, "application_date" | "updated_at">> = {
  applicationDate: "application_date",
  updatedAt: "updated_at",
};

/** A page of summaries as readSummaryPageInRange reads it. */
export interface SummaryPageRead {
  /** false: the project is not the organization's (or does not exist); the page is then empty. */
  owned: boolean;
  rows: UserSummary[];
  /**
   * The registrations in `countBuckets` from the project's counters, or of a search alone when
   * `countSearch`; null when neither was asked.
   */
  matchingTotal: number | null;
  /** The search's matchingTotal is an estimate (searchCount). */
  matchingTotalEstimated: boolean;
}

/**
 * Up to `limit` summaries of a project's users matching the filter within the range (keyset),
 * returned in the range's order (uid order unless it names another; a date order's members must
 * include that date), in one statement that also tells whether the organization owns the
 * project (the project row is the outer side: no row, not owned; one row without a user, an
 * empty page) and, with `countBuckets`, reads the matching total from the project's counters.
 * With `members`, only those members are read and decoded (the others are absent): the rows are
 * then for the caller's eyes only.
 */
export async function readSummaryPageInRange(
  em: EntityManager,
  organizationId: number,
  groupId: number,
  filter: UserListFilter,
  range: UserRange,
  members: SummaryMembers | null = null,
  countBuckets: readonly CounterBucket[] | null = null,
  countSearch = false,
): Promise<SummaryPageRead> {
  const order = range.order ?? UID_ORDER;
  // A search alone: one sample of the project chooses how to find the page and counts.
  let searchUids: number[] | null = null;
  let searchTotal: UserCount | null = null;
  if (searchesOnly(filter)) {
    const sample = await searchSample(em, groupId, filter.searchWords);
    searchUids = await searchPageUids(em, groupId, filter.searchWords, range, sample);
    if (countSearch) searchTotal = await searchCount(em, groupId, filter.searchWords, sample);
  }
  const { where, parameters } = filterSql(em, groupId, filter, searchUids);
  const { keyset, keysetParameters } = keysetSql(em, range);
  const sql = `SELECT pg.*, ${countBuckets ? registrationsInBucketsSql("pr.id", countBuckets) : "NULL"} AS matching_total
       FROM project pr
       LEFT JOIN (SELECT ${summarySelectSql(em, members)}
                    FROM registration r ${pageIndexHint(em, filter, order)} ${summaryJoinsSql(members, { status: filter.excluded != null })}
                   WHERE ${where}${keyset} ORDER BY ${orderBySql(order, range.fromEnd)} LIMIT ${Math.max(0, Math.trunc(range.limit))}) pg ON 1 = 1
      WHERE pr.id = ? AND pr.organization_id = ?`;
  const raw = await selectRawRows(em, sql, [...parameters, ...keysetParameters, groupId, organizationId]);
  if (raw.length === 0) return { owned: false, rows: [], matchingTotal: null, matchingTotalEstimated: false };
  const matchingTotal = countBuckets ? Number(raw[0].matching_total ?? 0) : (searchTotal?.total ?? null);
  // Ordered here: an outer ORDER BY would make MariaDB sort the derived page again in a temporary table.
  const rows = raw[0].uid == null ? [] : inPageOrder(decodeSummaries(raw, sql, members), order, range.fromEnd);
  return { owned: true, rows, matchingTotal, matchingTotalEstimated: searchTotal?.estimated ?? false };
}
