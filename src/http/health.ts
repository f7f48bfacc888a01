import { Router } from "express";
import type { DataSource } from "typeorm";

/** Liveness (the process answers) and readiness (the database answers). */
export function healthRouter(dataSource: DataSource, isShuttingDown: () => boolean): Router {
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
      await dataSource.query("SELECT 1");
      res.json({ status: "ready", database: "up" });
    } catch {
      res.status(503).json({ status: "unavailable", database: "down" });
    }
  });
  return router;
}
