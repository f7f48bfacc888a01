import type { Express } from "express";
import type { AppDependencies } from "../app";

/** Mounts POST /graphql and the offline explorer. (Issue 4 fills this in.) */
export async function mountGraphql(_app: Express, _deps: AppDependencies): Promise<{ stop(): Promise<void> }> {
  return { async stop() {} };
}
