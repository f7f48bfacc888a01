import express, { type RequestHandler, type Response } from "express";

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
  endWithText(res, text);
}

function endWithText(res: Response, text: string): void {
  res.setHeader("Content-Length", Buffer.byteLength(text, "utf8"));
  res.end(text, "utf8");
}

const expressSend = express.response.send;

/** Content-Types that Express's res.send would leave as they are (it writes the charset of a text). */
const UTF8_JSON_TYPES: ReadonlySet<unknown> = new Set([
  JSON_CONTENT_TYPE,
  "application/graphql-response+json; charset=utf-8",
]);

/**
 * res.send of a POST answer: a text whose Content-Type already names UTF-8 is sent as Express
 * would send it (same headers and body), without the SHA-1 ETag of the whole body and the
 * freshness check, which only a GET with If-None-Match could use. Anything else is Express's.
 */
function sendPostAnswer(this: Response, body?: unknown): Response {
  const plain =
    typeof body === "string" &&
    UTF8_JSON_TYPES.has(this.getHeader("Content-Type")) &&
    this.statusCode !== 204 &&
    this.statusCode !== 304;
  if (!plain) return expressSend.call(this, body);
  endWithText(this, body);
  return this;
}

/** Middleware: the request's POST answer goes out through sendPostAnswer (GraphQL's answers). */
export const leanPostAnswers: RequestHandler = (req, res, next) => {
  if (req.method === "POST") res.send = sendPostAnswer;
  next();
};
