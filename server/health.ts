// Liveness and readiness. /healthz answers while the process runs; /readyz only while the database
// answers within a second, so a load balancer stops sending traffic to an instance that lost it.
import { Router } from "express";
import type { Database } from "../db/client.ts";
import { ServiceUnavailable } from "./lib/errors.ts";

const READY_TIMEOUT_MS = 1000;

export function healthRouter(database: Database, mode: "sandbox" | "production"): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (req, res) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([database.ping(), timeout]);
    } catch (err) {
      req.log.warn({ err }, "database not ready");
      throw new ServiceUnavailable("The database is not answering.");
    } finally {
      clearTimeout(timer);
    }
    // The mode lets `till trigger` refuse to create test purchases on a production server.
    res.json({ status: "ok", database: database.driver, mode });
  });
  return router;
}
