import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module "express-serve-static-core" {
  interface Request {
    requestId: string;
  }
}

/** Echoes the client's X-Request-Id (when it is a sane token) or makes one, on request and response. */
export const requestId: RequestHandler = (req, res, next) => {
  const sent = req.get("x-request-id");
  req.requestId = sent && ACCEPTABLE_ID.test(sent) ? sent : randomUUID();
  res.setHeader("X-Request-Id", req.requestId);
  next();
};
