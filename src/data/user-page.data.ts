import { sqlDate } from "./events.data";
import type { EntityManager } from "typeorm";
import { registrationsInBucketsSql, type CounterBucket } from "./project-counters.data";
import { documentUidSql, indexedMatchSql } from "./person-search.data";
import { onSqlite } from "./registrations.data";
import { wordsInSql } from "./search-words.data";
import { selectRawRows, selectRows, sqlPlaceholders } from "./sql-rows";
import { statusExcludedSql } from "./statuses.data";
import {
  decodeSummaries,
  summaryJoinsSql,
  summarySelectSql,
  type SummaryMembers,
  type UserSummary,
} from "./user-projection";
import { keysetSql, orderBySql, UID_ORDER, type UserOrder, type UserRange } from "./user-order.data";
import { searchCount, searchPageUids, searchSample, type UserCount } from "./user-search.data";

export {
  UID_ORDER,
  USER_ORDER_KEYS,
  type UserOrder,
  type UserOrderKey,
  type UserPosition,
  type UserRange,
} from "./user-order.data";
export { SEARCH_WINDOWS, type UserCount } from "./user-search.data";

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
  } else if (searches(filter) && !onSqlite(em)) {
    // Beside another filter: the word table's ranges, which the optimizer reads first when rare.
    const words = wordsInSql(groupId, filter.searchWords);
    conditions.push(words.sql);
    parameters.push(...words.parameters);
  } else if (searches(filter)) {
    const match = indexedMatchSql(em, groupId, filter.searchWords, filter.searchWords[0]);
    conditions.push(`r.uid IN (SELECT ${documentUidSql(em)} FROM registration_search WHERE ${match.sql})`);
    parameters.push(...match.parameters);
  }
  return { where: conditions.join(" AND "), parameters };
}

/**
 * How many users of a project match the filter. A filter that searches is counted from a sample of
 * the project's documents (searchCount): exactly when the sample holds the project or a word is
 * rare, by a projection otherwise.
 */
export async function countUsers(em: EntityManager, groupId: number, filter: UserListFilter): Promise<UserCount> {
  if (searchesOnly(filter))
    return searchCount(em, groupId, filter.searchWords, await searchSample(em, groupId, filter.searchWords));
  // The status is joined only when the filter reads it: a count by status, by updatedSince or by
  // search then reads the registration's own indexes, not a million joined rows.
  const joins = filter.excluded != null ? "LEFT JOIN status s ON s.id = r.status_id" : "";
  const exactly = async () => {
    const { where, parameters } = filterSql(em, groupId, filter);
    const sql = `SELECT COUNT(*) AS total FROM registration r ${joins} WHERE ${where}`;
    const [row] = await selectRows(em, { total: "int" }, sql, parameters);
    return row?.total ?? 0;
  };
  if (!searches(filter)) return { total: await exactly(), estimated: false };
  // Beside other filters, exactly counting a common word reads every registration it matches.
  const beside = filterSql(em, groupId, { ...filter, searchWords: null });
  const sample = await searchSample(em, groupId, filter.searchWords, {
    joins,
    sql: beside.where,
    parameters: beside.parameters,
  });
  return searchCount(em, groupId, filter.searchWords, sample, exactly);
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
