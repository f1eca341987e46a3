// /demo: the demo store, mounted before express.json() (better-auth reads its own bodies). The store
// module and its better-auth instance are imported on the first request only, so start-up does not
// grow with the demo; a failed load is retried by the next request.
import { Router } from "express";
import type { DemoDeps } from "./store.ts";

export function demoRouter(deps: DemoDeps): Router {
  let store: Promise<Router> | null = null;
  const load = () => (store ??= import("./store.ts").then((m) => m.createDemoStore(deps)));
  const r = Router();
  r.use("/demo", async (req, res, next) => {
    let router: Router;
    try {
      router = await load();
    } catch (err) {
      store = null;
      return void res
        .status(503)
        .type("text/plain")
        .send(
          `The demo store is unavailable: ${err instanceof Error ? err.message : String(err)}. See the server log.`,
        );
    }
    router(req, res, next);
  });
  return r;
}
