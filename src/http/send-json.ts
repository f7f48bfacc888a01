import type { Response } from "express";

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * Sends `value` as a JSON answer, as `res.status(status).json(value)` would, with the same body and
 * Content-Type, without what Express's res.send does for every body: it hashes the whole body for
 * an ETag (which no POST answer uses), copies the text into a Buffer and checks request freshness.
 * A middleware that keeps the answer (Idempotency-Key replaces res.send on the response) still
 * receives it through res.send.
 */
export function sendJson(res: Response, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader("Content-Type", JSON_CONTENT_TYPE);
  if (Object.hasOwn(res, "send")) {
    res.send(text);
    return;
  }
  res.setHeader("Content-Length", Buffer.byteLength(text, "utf8"));
  res.end(text, "utf8");
}
