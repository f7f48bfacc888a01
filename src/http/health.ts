import { Router } from "express";
import type { ProcessState } from "../domain/process-state";

/** Resolves with the check, or rejects once `ms` have passed: a frozen database must not hold /readyz. */
function within<T>(ms: number, check: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([check, deadline]).finally(() => clearTimeout(timer));
}

function replicasOf({ replicas: set }: ProcessState): { replicas?: unknown } {
  return set ? { replicas: set.report() } : {};
}

/** Liveness (the process answers) and readiness (the database answers within `readinessTimeoutMs`). */
export function healthRouter(state: ProcessState, isShuttingDown: () => boolean, readinessTimeoutMs: number): Router {
  const { dataSource } = state;
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    if (isShuttingDown()) {
      res.status(503).json({ status: "shutting_down" });
      return;
    }
    try {
      if (!dataSource.isInitialized) throw new Error("not initialized");
      await within(readinessTimeoutMs, dataSource.query("SELECT 1"));
      // Replicas are listed, never required: their reads fall back to the primary.
      res.json({ status: "ready", database: "up", ...replicasOf(state) });
    } catch {
      res.status(503).json({ status: "unavailable", database: "down", ...replicasOf(state) });
    }
  });
  return router;
}
