import type { Request, RequestHandler, Response } from "express";
import { formatGtidPosition, parseGtidPosition } from "../db/gtid";
import type { ConsistencyNote } from "../domain/context";
import { clientValue } from "../common/client-value";
import { TransportError } from "./transport-errors";

// Read-your-writes across principals (docs/scale-out.md): every answer whose request wrote, or
// read at a known replication position, carries that position; a client sends it back on a later
// request (any account, either transport) to read at least that fresh.

export const CONSISTENCY_HEADER = "Regapi-Consistency";

export const CONSISTENCY_INVALID_MESSAGE = (sent: string) =>
  `${CONSISTENCY_HEADER} header: ${sent} is not a replication position; send back the value of an earlier answer's ${CONSISTENCY_HEADER} header (MariaDB GTIDs domain-server-sequence, comma-separated, e.g. 0-1-42), or leave the header out.`;

const notes = new WeakMap<Request, ConsistencyNote>();

/**
 * Reads the header once per API request. A value that is not a position is refused with
 * CONSISTENCY_INVALID (400) by `refuse`, in the transport's own error shape; an empty one counts
 * as absent.
 */
export function consistencyHeader(
  refuse: (req: Request, res: Response, error: TransportError) => void,
): RequestHandler {
  return (req, res, next) => {
    const sent = req.get(CONSISTENCY_HEADER);
    if (sent === undefined || sent.trim() === "") {
      notes.set(req, { requested: null, position: null });
      return next();
    }
    const requested = parseGtidPosition(sent);
    if (!requested)
      return refuse(
        req,
        res,
        new TransportError("CONSISTENCY_INVALID", CONSISTENCY_INVALID_MESSAGE(clientValue(sent))),
      );
    notes.set(req, { requested, position: requested });
    next();
  };
}

/** The request's note (a fresh one when the header middleware did not run, e.g. a test's own app). */
export function consistencyOf(req: Request): ConsistencyNote {
  let note = notes.get(req);
  if (!note) {
    note = { requested: null, position: null };
    notes.set(req, note);
  }
  return note;
}

/** Sets the header from the request's note, when it holds a position. */
export function sendConsistency(res: Response, note: ConsistencyNote): void {
  if (note.position && !res.headersSent) res.setHeader(CONSISTENCY_HEADER, formatGtidPosition(note.position));
}
