import type { EntityManager } from "typeorm";
import { sqlDate } from "./events.data";
import type { SqlFragment } from "./sql-rows";

// The orders of a users page and the keyset SQL of a page's range in one of them.

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
  applicationDate: "application_date",
  updatedAt: "updated_at",
  name: "sort_name",
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

/**
 * The uid's side of a position, and the order column's before it (a tie on it goes by uid), on the
 * table `alias` (the registration, or a table that holds its uid and order column).
 */
export function beyondSql(
  em: EntityManager,
  order: UserOrder,
  position: UserPosition,
  side: "after" | "before",
  alias = "r",
): SqlFragment {
  const greater = (side === "after") !== order.descending;
  const op = greater ? ">" : "<";
  if (order.key === "uid") return { sql: `${alias}.uid ${op} ?`, parameters: [position.uid] };
  const column = `${alias}.${ORDER_COLUMNS[order.key]}`;
  const value = order.key === "name" ? position.name : position.at && sqlDate(em, position.at);
  if (value === undefined)
    throw new Error(`a position in ${order.key} order needs its ${order.key === "name" ? "name" : "date"}`);
  return {
    sql: `(${column} ${op} ? OR (${column} = ? AND ${alias}.uid ${op} ?))`,
    parameters: [value, value, position.uid],
  };
}

export function keysetSql(
  em: EntityManager,
  range: UserRange,
  alias = "r",
): { keyset: string; keysetParameters: unknown[] } {
  const order = range.order ?? UID_ORDER;
  let keyset = "";
  const keysetParameters: unknown[] = [];
  for (const side of ["after", "before"] as const) {
    const position = range[side];
    if (position == null) continue;
    const beyond = beyondSql(em, order, position, side, alias);
    keyset += ` AND ${beyond.sql}`;
    keysetParameters.push(...beyond.parameters);
  }
  return { keyset, keysetParameters };
}

/** The ORDER BY of a page read in `order`, from its start or (fromEnd) from its end, on the table `alias`. */
export function orderBySql(order: UserOrder, fromEnd: boolean, alias = "r"): string {
  const direction = order.descending !== fromEnd ? "DESC" : "ASC";
  return order.key === "uid"
    ? `${alias}.uid ${direction}`
    : `${alias}.${ORDER_COLUMNS[order.key]} ${direction}, ${alias}.uid ${direction}`;
}
