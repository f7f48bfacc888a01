import { Router } from "express";
import type { AppDependencies } from "../app";

/** POST /reg/api2/{users,statuses,projects}/ — the legacy action envelope. (Issue 3 fills this in.) */
export function legacyRestRouter(_deps: AppDependencies): Router {
  return Router();
}
