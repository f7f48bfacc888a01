import type { Express } from "express";
import request from "supertest";
import { mapleHeaders } from "../fixtures/test-fixture";

export type LegacyEndpoint = "users" | "statuses" | "projects" | "products" | "events" | "account" | "persons";

/**
 * POSTs a legacy action envelope to /reg/api2/<endpoint>/ (or to any path starting with "/"),
 * with the Maple Camps credentials unless told otherwise.
 */
export function postRest(
  app: Express,
  target: LegacyEndpoint | `/${string}`,
  body: unknown,
  headers: Record<string, string> = mapleHeaders,
): request.Test {
  const path = target.startsWith("/") ? target : `/reg/api2/${target}/`;
  return request(app)
    .post(path)
    .set(headers)
    .send(body as object);
}
