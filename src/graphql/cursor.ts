import { validationFailed } from "../domain/errors";
import type { UserOrder, UserPosition } from "../domain/users/user-reads";

// Cursors are opaque to clients; inside they carry the id the keyset continues after, under a
// prefix naming the list, so a cursor of one list is refused by another. A users cursor of an
// order other than uid ascending also names its order and carries the order's date or sort name, so a cursor
// of one order is refused by a page of another (it would mean a different place).

const encodeCursor = (prefix: string, id: number) => Buffer.from(`${prefix}${id}`, "utf8").toString("base64");

const notACursor = (path: string) =>
  validationFailed([{ path: [path], reason: "INVALID_ID", message: "is not a cursor returned by this API" }]);

function decodeCursor(prefix: string, cursor: string, path: string): number {
  const decoded = Buffer.from(cursor, "base64").toString("utf8");
  const id = decoded.startsWith(prefix) ? Number(decoded.slice(prefix.length)) : NaN;
  if (!Number.isSafeInteger(id) || id < 0 || encodeCursor(prefix, id) !== cursor) throw notACursor(path);
  return id;
}

const USER = "user:";
const TAG = "tag:";

/** The name of an order inside a cursor, and as the client wrote it (orderBy). */
const ORDER_NAMES: Record<UserOrder["key"], { cursor: string; graphql: string }> = {
  uid: { cursor: "uid", graphql: "UID" },
  applicationDate: { cursor: "applied", graphql: "APPLICATION_DATE" },
  updatedAt: { cursor: "updated", graphql: "UPDATED_AT" },
  name: { cursor: "name", graphql: "NAME" },
};

const cursorOrderName = (order: UserOrder) => `${ORDER_NAMES[order.key].cursor}-${order.descending ? "desc" : "asc"}`;
const orderText = (order: UserOrder) => `${ORDER_NAMES[order.key].graphql} ${order.descending ? "DESC" : "ASC"}`;
const isUidAscending = (order: UserOrder) => order.key === "uid" && !order.descending;

export function encodeUserCursor(order: UserOrder, position: UserPosition): string {
  if (isUidAscending(order)) return encodeCursor(USER, position.uid);
  const payload =
    position.name !== undefined
      ? `${Buffer.from(position.name, "utf8").toString("base64url")}~${position.uid}`
      : position.at
        ? `${position.at.getTime()}.${position.uid}`
        : String(position.uid);
  return Buffer.from(`user~${cursorOrderName(order)}:${payload}`, "utf8").toString("base64");
}

/** The position a users cursor names; VALIDATION_FAILED at `path` for a cursor of another order or of none. */
export function decodeUserCursor(cursor: string, order: UserOrder, path = "after"): UserPosition {
  const decoded = Buffer.from(cursor, "base64").toString("utf8");
  const ordered = /^user~([a-z]+-(?:asc|desc)):(?:(\d+)\.|([A-Za-z0-9_-]*)~)?(\d+)$/.exec(decoded);
  const cursorOrder =
    ordered?.[1] ?? (decoded.startsWith(USER) ? cursorOrderName({ key: "uid", descending: false }) : null);
  if (cursorOrder === null) throw notACursor(path);
  if (cursorOrder !== cursorOrderName(order)) {
    const named = Object.entries(ORDER_NAMES).find(([, names]) => cursorOrder.startsWith(`${names.cursor}-`));
    if (!named) throw notACursor(path);
    const of: UserOrder = { key: named[0] as UserOrder["key"], descending: cursorOrder.endsWith("-desc") };
    throw validationFailed([
      {
        path: [path],
        reason: "INVALID_ID",
        message: `is a cursor of the users ordered by ${orderText(of)}, not of this page's order (${orderText(order)}); pass the orderBy the cursor's page had`,
      },
    ]);
  }
  const position: UserPosition = ordered
    ? {
        uid: Number(ordered[4]),
        ...(ordered[2] !== undefined ? { at: new Date(Number(ordered[2])) } : {}),
        ...(ordered[3] !== undefined ? { name: Buffer.from(ordered[3], "base64url").toString("utf8") } : {}),
      }
    : { uid: decodeCursor(USER, cursor, path) };
  const dated = order.key === "applicationDate" || order.key === "updatedAt";
  const wellFormed =
    Number.isSafeInteger(position.uid) &&
    dated === (position.at !== undefined) &&
    (order.key === "name") === (position.name !== undefined) &&
    encodeUserCursor(order, position) === cursor;
  if (!wellFormed) throw notACursor(path);
  return position;
}

export const encodeTagCursor = (tagId: number): string => encodeCursor(TAG, tagId);
export const decodeTagCursor = (cursor: string, path = "after"): number => decodeCursor(TAG, cursor, path);
