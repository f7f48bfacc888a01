import { validationFailed } from "../domain/errors";

// Cursors are opaque to clients; inside they carry the id the keyset continues after, under a
// prefix naming the list, so a cursor of one list is refused by another.

const encodeCursor = (prefix: string, id: number) => Buffer.from(`${prefix}${id}`, "utf8").toString("base64");

function decodeCursor(prefix: string, cursor: string, path: string): number {
  const decoded = Buffer.from(cursor, "base64").toString("utf8");
  const id = decoded.startsWith(prefix) ? Number(decoded.slice(prefix.length)) : NaN;
  if (!Number.isSafeInteger(id) || id < 0 || encodeCursor(prefix, id) !== cursor) {
    throw validationFailed([{ path: [path], reason: "INVALID_ID", message: "is not a cursor returned by this API" }]);
  }
  return id;
}

const USER = "user:";
const TAG = "tag:";

export const encodeUserCursor = (uid: number): string => encodeCursor(USER, uid);
export const decodeUserCursor = (cursor: string, path = "after"): number => decodeCursor(USER, cursor, path);

export const encodeTagCursor = (tagId: number): string => encodeCursor(TAG, tagId);
export const decodeTagCursor = (cursor: string, path = "after"): number => decodeCursor(TAG, cursor, path);
