import { validationFailed } from "../domain/errors";

// Cursors are opaque to clients; inside they carry the uid the keyset continues after.
const PREFIX = "user:";

export function encodeUserCursor(uid: number): string {
  return Buffer.from(`${PREFIX}${uid}`, "utf8").toString("base64");
}

export function decodeUserCursor(cursor: string, path = "after"): number {
  const decoded = Buffer.from(cursor, "base64").toString("utf8");
  const uid = decoded.startsWith(PREFIX) ? Number(decoded.slice(PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(uid) || uid < 0 || encodeUserCursor(uid) !== cursor) {
    throw validationFailed([{ path: [path], message: "is not a cursor returned by this API" }]);
  }
  return uid;
}
